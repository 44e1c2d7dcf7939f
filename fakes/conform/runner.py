"""``fakes conform``: the same flows against the real service and a fresh fake, compared.

1. A walk of the API document (the vendor's, ``--document``; else the fake's own): one request per
   operation on each side (:mod:`.walk`).
2. The service's scenarios, on each side along the real-service path (:mod:`.flows`).
3. Clean-up: every resource the run created on the real service is deleted.
4. Each operation's exchanges are paired (the n-th of the operation in the walk or in a scenario on
   one side with the n-th on the other) and compared (:mod:`.compare`): the report (:mod:`.report`).
"""

from __future__ import annotations

import datetime as dt
import re
import secrets
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from .. import registry
from ..kernel.clock import Clock
from ..kernel.redaction import Redactor
from .compare import Difference, compare
from .document import Document
from .flows import FlowResult, run_both, service_scenarios
from .observed import Observed
from .redact import service_redactor
from .report import ConformReport, OperationResult
from .sides import Budget, FakeSide, RealSide, Unreachable
from .walk import Walk, WalkStep

#: the real side refusing the account (its plan, its rate limit) says nothing about the fake
ACCESS_REFUSALS = frozenset({401, 402, 403, 429})
DEFAULT_MAX_CALLS = 25
DEFAULT_MAX_WAIT_S = 60.0


@dataclass
class ConformOptions:
    service: str
    real_url: str
    credentials: dict[str, str] = field(default_factory=dict)
    document: str | None = None  # a path or URL; None: the fake's own document
    walk: bool = True
    scenarios: list[str] | None = None  # None: all of the service's; []: none
    operations: list[str] = field(default_factory=list)  # globs over "GET /path/{id}"
    skip_operations: list[str] = field(default_factory=list)
    allow_writes: bool = False
    max_calls: int = DEFAULT_MAX_CALLS
    max_wait: float = DEFAULT_MAX_WAIT_S
    stand_in: bool = False
    control_token: str | None = None
    seed: int = 0
    settings: dict[str, Any] = field(default_factory=dict)
    params: dict[str, str] = field(default_factory=dict)
    headers: list[str] = field(default_factory=list)
    timeout: float = 30.0
    #: tests: the real side's transport and sleep (default: sockets and time.sleep)
    real_transport: httpx.BaseTransport | None = None
    real_sleep: Callable[[float], None] | None = None
    progress: Callable[[str], None] | None = None


def conform(options: ConformOptions) -> ConformReport:
    """Run the walk and the scenarios on both sides; the report (see :class:`ConformReport`)."""
    started = time.perf_counter()
    run_id = secrets.token_hex(4)
    fake = registry.fake_class(options.service)(seed=options.seed, clock=Clock("manual"), **options.settings)
    document = Document.load(options.document, timeout=options.timeout) if options.document else \
        Document(fake.openapi(), f"the fake's own (`fakes openapi {options.service}`)")
    budget = Budget(options.max_calls)
    real = RealSide(options.real_url, options.credentials, budget=budget, allow_writes=options.allow_writes,
                    max_wait=options.max_wait, stand_in=options.stand_in, control_token=options.control_token,
                    timeout=options.timeout, sleep=options.real_sleep, transport=options.real_transport,
                    run_id=run_id)
    real.fallback_schemes = Document(fake.openapi()).security_schemes()
    fake_side = FakeSide(fake)
    note = options.progress or (lambda line: None)
    report = ConformReport(
        options.service, shown_url(options.real_url), shown_url(document.source), max_calls=options.max_calls,
        writes_allowed=options.allow_writes, run_id=run_id,
        started=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        fake={"seed": options.seed, "settings": options.settings}, secrets=list(options.credentials.values()))
    selected = [op for op in document.select(options.operations, options.skip_operations)
                if not op.template.startswith("/_fake")] if options.walk else []
    walker = Walk(document, real, fake_side, run_tag=f"contract-fakes conform {run_id}", user_params=options.params)
    try:
        steps = walker.run(selected, progress=lambda step: note(_step_line(step)))
        flows = []
        for name, scenario in service_scenarios(options.service, options.scenarios).items():
            flow = run_both(scenario, real, fake_side, options.credentials)
            flows.append(flow)
            note(f"scenario {name}: real {flow.real}, fake {flow.fake}")
            for side in (real, fake_side):
                for exchange in side.exchanges_of(name):
                    if exchange.method == "POST" and exchange.status < 300 and isinstance(exchange.json(), dict):
                        walker.note_created(side, exchange.path, exchange.json())
                    elif exchange.method == "DELETE" and exchange.status < 300:
                        side.note_deleted(exchange.path)
    finally:
        # also when the run stops half-way (Ctrl-C, an error): what it created does not stay behind
        try:
            for path, outcome in real.cleanup(document):
                report.cleanup.append({"path": path, "result": outcome if isinstance(outcome, str)
                                       else f"DELETE -> {outcome.status}"})
        finally:
            real.close()
            fake_side.close()
    if not real.exchanges and real.transport_errors:
        raise Unreachable(f"cannot reach --real-url {options.real_url}: {real.transport_errors[0]}")
    report.scenarios = flows
    report.operations = assemble(document, selected, steps, flows, real, fake_side, options.headers,
                                 service_redactor(options.service))
    report.calls = budget.calls
    report.duration_s = time.perf_counter() - started
    return report


def shown_url(url: str) -> str:
    """A URL as a report shows it: a user name and password in it redacted."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc="[redacted]@" + parts.netloc.rpartition("@")[2]))


def _step_line(step: WalkStep) -> str:
    if step.real is not None and step.fake is not None:
        return f"walk {step.operation.key}: real {step.real.status}, fake {step.fake.status}"
    return f"walk {step.operation.key}: not run ({step.reason})"


def assemble(document: Document, selected: list[Any], steps: list[WalkStep], flows: list[FlowResult],
             real: RealSide, fake: FakeSide, extra_headers: list[str],
             redactor: Redactor | None = None) -> list[OperationResult]:
    """One result per operation: the walk's selection and every operation a scenario reached."""
    pairs: dict[str, list[tuple[Observed, Observed]]] = defaultdict(list)
    reasons: dict[str, list[str]] = defaultdict(list)
    sources: dict[str, list[str]] = defaultdict(list)
    order = [op.key for op in selected]
    for step in steps:
        key = step.operation.key
        if step.real is not None and step.fake is not None:
            step.real.operation = step.fake.operation = key
            pairs[key].append((step.real, step.fake))
            sources[key].append("walk")
        else:
            reasons[key].append(f"walk: {step.reason}")
    for flow in flows:
        mine: dict[tuple[str, str], list[Observed]] = defaultdict(list)
        theirs: dict[tuple[str, str], list[Observed]] = defaultdict(list)
        for side, found in ((real, mine), (fake, theirs)):
            for exchange in side.exchanges_of(flow.name):
                exchange.operation = document.operation_key(exchange.method, exchange.path)
                found[exchange.operation, situation(exchange.query)].append(exchange)
        for group in [*mine, *(g for g in theirs if g not in mine)]:
            key = group[0]
            if key not in order:
                order.append(key)
            matched = list(zip(mine.get(group, []), theirs.get(group, []), strict=False))
            pairs[key] += matched
            if matched:
                sources[key].append(flow.name)
            elif group in mine:
                reasons[key].append(f"{flow.name}: the fake side did not reach it ({flow.fake}: {flow.fake_message})")
            else:
                reasons[key].append(f"{flow.name}: the real side did not reach it ({flow.real}"
                                    + (f": {flow.real_message}" if flow.real_message else "") + ")")
    return [_result(key, pairs.get(key, []), reasons.get(key, []), sources.get(key, []), document, extra_headers,
                    redactor) for key in order]


_WORD = re.compile(r"-?[A-Za-z][A-Za-z_.\-]*")


def situation(query: str) -> str:
    """What a request asks for beyond its operation: its query's words (``domain=PROFILE``,
    ``ordering=-release_datetime``), not its numbers and ids (pages, cursors, ids differ between
    the two sides). The n-th exchange of an operation in a situation pairs with the other side's."""
    words = sorted((name, value) for name, value in httpx.QueryParams(query).multi_items() if _WORD.fullmatch(value))
    return "&".join(f"{name}={value}" for name, value in words)


def _shown(exchange: Observed, redactor: Redactor | None) -> str:
    """What was sent, its query's credentials redacted (the journal's rule)."""
    query = redactor.query(exchange.query) if redactor is not None else exchange.query
    return f"{exchange.method} {exchange.path}" + (f"?{query}" if query else "")


def _result(key: str, pairs: list[tuple[Observed, Observed]], reasons: list[str], sources: list[str],
            document: Document, extra_headers: list[str], redactor: Redactor | None) -> OperationResult:
    result = OperationResult(key, "not run", sources=list(dict.fromkeys(sources)))
    found: dict[str, Difference] = {}
    refused: list[str] = []
    for real_side, fake_side in pairs:
        if real_side.status in ACCESS_REFUSALS and fake_side.status < 300 and real_side.source == "walk":
            refused.append(f"the real service refused the account ({real_side.status}): its plan or rate limit")
            continue
        result.compared += 1
        if not result.example:
            result.example = f"{_shown(real_side, redactor)} (real) | {_shown(fake_side, redactor)} (fake)"
        for difference in compare(real_side, fake_side, operation=key, hints=document, extra_headers=extra_headers):
            found.setdefault(difference.key(key), difference)
    if result.compared:
        result.differences = list(found.values())
        result.status = "differs" if found else "same"
    else:
        result.reason = "; ".join(dict.fromkeys(refused + reasons)) or "no request reached it"
    return result
