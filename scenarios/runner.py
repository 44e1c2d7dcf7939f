"""The scenario framework: steps, checks and a readable report, against a fake or any base URL.

Writing a scenario is one file in this package that defines ``SCENARIO``::

    from .runner import Run, Scenario

    def flow(run: Run) -> None:
        token = run.credential("access_token", create=lambda: run.control(
            "POST", "/_fake/members", json={})["access_token"])
        with run.step("read the first page"):
            r = run.request("GET", "/things", headers={"Authorization": f"Bearer {token}"})
            run.check(r.status_code == 200, "answers 200", r.text)
        run.wait_until(lambda: run.request("GET", "/ready").status_code == 200,
                       timeout_s=3600, poll_s=60, what="the build")

    SCENARIO = Scenario(name="thing-sync", service="thing", summary="...", flow=flow)

Against a fake (one that answers ``GET /_fake/health``) the scenario creates what it needs
through the control plane and moves the virtual clock; against the real service (only when the
caller says so: ``is_fake=False``, ``--real``) it takes credentials from the user and polls in
real time with a deadline. ``run.check`` stops the scenario at the
first broken promise; the report lists every step, request and check.
"""

from __future__ import annotations

import contextlib
import importlib
import pkgutil
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx


class ScenarioFailed(AssertionError):
    """A check failed: the service broke a promise of its contract."""


class ScenarioSkipped(Exception):
    """The scenario cannot run here (e.g. a fake-only step against a real service)."""


@dataclass
class Check:
    description: str
    ok: bool
    detail: str = ""


@dataclass
class Step:
    name: str
    requests: list[str] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    #: client rules (verdict ids) this step breaks on purpose, to show the fake's answer
    expected_verdicts: tuple[str, ...] = ()
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error and all(c.ok for c in self.checks)


@dataclass
class Scenario:
    name: str
    service: str
    summary: str
    flow: Callable[[Run], None]


@dataclass
class Report:
    scenario: str
    base_url: str
    target: str  # "fake" or "real"
    steps: list[Step] = field(default_factory=list)
    status: str = "passed"  # passed | failed | skipped
    message: str = ""
    #: the world the run used on a shared fake ("" when it ran where the base URL points)
    world: str = ""
    #: virtual seconds the run moved the fake's clock forward (what it changed for other users
    #: of the same world)
    clock_moved_s: float = 0.0

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def render(self) -> str:
        lines = [f"scenario {self.scenario} against {self.base_url} ({self.target})"]
        for step in self.steps:
            lines.append(f"  {'PASS' if step.ok else 'FAIL'} {step.name}" + (
                f"  (breaks on purpose: {', '.join(step.expected_verdicts)})" if step.expected_verdicts else ""))
            lines.extend(f"       {r}" for r in step.requests[-8:])
            if len(step.requests) > 8:
                lines.insert(len(lines) - 8, f"       ... {len(step.requests) - 8} earlier requests")
            for check in step.checks:
                mark = "ok " if check.ok else "NOT"
                lines.append(f"       [{mark}] {check.description}" + (f" - {check.detail}" if not check.ok and
                                                                         check.detail else ""))
            if step.error:
                lines.append(f"       error: {step.error}")
        if self.world:
            lines.append(f"  ran in world {self.world!r}: the default world was not touched")
        elif self.clock_moved_s:
            lines.append(f"  moved the fake's clock forward by {duration_text(self.clock_moved_s)}")
        lines.append(f"{self.status.upper()}: {self.scenario}" + (f" - {self.message}" if self.message else ""))
        return "\n".join(lines)

    def expected_verdicts(self) -> set[str]:
        """Every client rule a step of this run declared it breaks on purpose."""
        return {rule for step in self.steps for rule in step.expected_verdicts}

    def to_dict(self) -> dict[str, Any]:
        return {"scenario": self.scenario, "base_url": self.base_url, "target": self.target,
                "status": self.status, "message": self.message, "world": self.world,
                "clock_moved_s": self.clock_moved_s,
                "steps": [{"name": s.name, "ok": s.ok, "requests": s.requests, "error": s.error,
                           "expected_verdicts": list(s.expected_verdicts),
                           "checks": [vars(c) for c in s.checks]} for s in self.steps]}


class Run:
    """What a scenario's flow gets: an HTTP client, credentials, the clock, and the report."""

    def __init__(self, client: httpx.Client, *, is_fake: bool, credentials: dict[str, str] | None = None,
                 report: Report | None = None, sleep: Callable[[float], None] = time.sleep,
                 control_token: str | None = None) -> None:
        self.http = client
        self.is_fake = is_fake
        self.credentials = dict(credentials or {})
        self.report = report or Report("adhoc", str(client.base_url), "fake" if is_fake else "real")
        self._sleep = sleep
        self._step: Step | None = None
        self._control_headers = {"Authorization": f"Bearer {control_token}"} if control_token else {}
        # what this run sent (below the base URL), and where the fake's journal and verdicts stood
        # before: a run judges only its own requests, whatever ran before or beside it
        self._sent: list[tuple[str, str, str]] = []
        self._journal_mark = 0
        self._verdicts_mark: dict[str, int] = {}

    # -- structure -----------------------------------------------------------------------------
    @contextlib.contextmanager
    def step(self, name: str, *, expect_verdicts: Iterable[str] = ()) -> Iterator[Step]:
        """A named part of the flow; ``expect_verdicts`` lists the client rules (ids such as
        ``member-export/no-version-header``) it breaks on purpose: the scenario tests assert that
        a scenario breaks exactly the rules its steps declare (docs/verdicts.md)."""
        step = Step(name, expected_verdicts=tuple(expect_verdicts))
        self.report.steps.append(step)
        outer, self._step = self._step, step
        try:
            yield step
        except ScenarioFailed:
            raise
        except ScenarioSkipped:
            raise
        except Exception as exc:
            step.error = repr(exc)
            raise ScenarioFailed(f"step {name!r} raised {exc!r}") from exc
        finally:
            self._step = outer

    def _current(self) -> Step:
        if self._step is None:
            step = Step("(no step)")
            self.report.steps.append(step)
            self._step = step
        return self._step

    def check(self, condition: bool, description: str, detail: Any = "") -> None:
        """Record a promise of the contract; stop the scenario when it is broken."""
        text = detail if isinstance(detail, str) else repr(detail)
        self._current().checks.append(Check(description, bool(condition), text[:500]))
        if not condition:
            raise ScenarioFailed(f"{description}: {text[:500]}")

    # -- HTTP ----------------------------------------------------------------------------------
    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        response = self.http.request(method, path, **kwargs)
        url = response.request.url
        query = url.query.decode()
        self._current().requests.append(f"{method} {url.path}{'?' + query if query else ''} -> "
                                        f"{response.status_code}")
        below_base = url.path[len(self.http.base_url.path.rstrip("/")):] or "/"
        if not below_base.startswith("/_fake/"):
            self._sent.append((method.upper(), below_base, query))
        return response

    def control(self, method: str, path: str, **kwargs: Any) -> Any:
        """A call to the fake's control plane; skips the scenario against a real service."""
        if not self.is_fake:
            raise ScenarioSkipped(f"needs the fake's control plane ({method} {path})")
        kwargs["headers"] = {**self._control_headers, **kwargs.get("headers", {})}
        response = self.request(method, path, **kwargs)
        if response.status_code >= 400:
            raise ScenarioFailed(f"control call {method} {path} failed: {response.status_code} {response.text}")
        return response.json() if response.content else None

    def credential(self, name: str, *, create: Callable[[], str] | None = None) -> str:
        """A credential given by the user, or one the fake creates through ``create``."""
        if name in self.credentials:
            return self.credentials[name]
        if self.is_fake and create is not None:
            value = create()
            self.credentials[name] = value
            return value
        raise ScenarioSkipped(f"needs credential {name!r} (pass --credentials {name}=...)")

    # -- time ----------------------------------------------------------------------------------
    def now_ms(self) -> int:
        if self.is_fake:
            return int(self.control("GET", "/_fake/clock")["epoch_ms"])
        return int(time.time() * 1000)

    def wait(self, seconds: float) -> None:
        """Let time pass: the fake's clock moves; a real service is waited for in real time."""
        if self.is_fake:
            self.control("POST", "/_fake/clock", json={"advance_seconds": seconds})
            self.report.clock_moved_s += seconds
        else:
            self._sleep(seconds)

    # -- judging only this run's own requests --------------------------------------------------
    def mark_start(self) -> None:
        """Note where the fake's journal and verdict counts stand (the runner calls it first)."""
        if not self.is_fake:
            return
        entries = self._read_control("/_fake/journal", {"limit": 1})["entries"]
        self._journal_mark = entries[-1]["seq"] if entries else 0
        self._verdicts_mark = self._verdict_counts()

    def own_journal(self) -> list[dict[str, Any]]:
        """The fake's journal entries of this run's own requests (fake only): those recorded since
        :meth:`mark_start` that match a request this run sent, so another client's requests and
        earlier runs are left out."""
        entries = self._read_control("/_fake/journal")["entries"]
        unmatched = list(self._sent)
        own = []
        for entry in entries:
            key = (entry["method"], entry["path"], entry["query"])
            if entry["seq"] > self._journal_mark and key in unmatched:
                unmatched.remove(key)
                own.append(entry)
        return own

    def new_verdicts(self) -> dict[str, int]:
        """Client rules broken since :meth:`mark_start`, with how often (fake only)."""
        now = self._verdict_counts()
        return {rule: count - self._verdicts_mark.get(rule, 0) for rule, count in now.items()
                if count > self._verdicts_mark.get(rule, 0)}

    def _verdict_counts(self) -> dict[str, int]:
        return {v["id"]: v["count"] for v in self._read_control("/_fake/verdicts")["verdicts"]}

    def _read_control(self, path: str, params: dict[str, Any] | None = None) -> Any:
        """A control-plane read that is bookkeeping, not part of the flow (not in the report)."""
        if not self.is_fake:
            raise ScenarioSkipped(f"needs the fake's control plane (GET {path})")
        response = self.http.get(path, params=params, headers=self._control_headers)
        if response.status_code >= 400:
            raise ScenarioFailed(f"control call GET {path} failed: {response.status_code} {response.text}")
        return response.json()

    def wait_until(self, condition: Callable[[], bool], *, timeout_s: float, poll_s: float, what: str) -> None:
        """Poll ``condition`` every ``poll_s`` (virtual or real) seconds until it holds or time is up."""
        waited = 0.0
        while not condition():
            if waited >= timeout_s:
                self.check(False, f"{what} within {timeout_s:g} s", f"still not done after {waited:g} s")
            self.wait(poll_s)
            waited += poll_s


# -- discovery and running ----------------------------------------------------------------------
def discover() -> dict[str, Scenario]:
    """Every ``SCENARIO`` defined by a module of this package, by name: those of the services this
    process knows (`fakes list`; the notes template's only once it is registered)."""
    from fakes import registry
    # the package is `scenarios` in a checkout and `fakes.scenarios` once installed
    package = importlib.import_module(__package__ or "scenarios")

    found: dict[str, Scenario] = {}
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("_") or info.name in ("runner", "bench"):
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for scenario in [getattr(module, "SCENARIO", None), *getattr(module, "SCENARIOS", [])]:
            if isinstance(scenario, Scenario) and scenario.service in registry.SERVICES:
                found[scenario.name] = scenario
    return dict(sorted(found.items()))


def is_fake_target(client: httpx.Client, control_token: str | None = None) -> bool:
    headers = {"Authorization": f"Bearer {control_token}"} if control_token else {}
    try:
        response = client.get("/_fake/health", headers=headers)
    except httpx.HTTPError:
        return False
    try:
        return response.status_code == 200 and response.json().get("status") == "ok"
    except ValueError:
        return False


def run_scenario(scenario: Scenario, client: httpx.Client, *, is_fake: bool | None = None,
                 credentials: dict[str, str] | None = None, control_token: str | None = None,
                 world: str = "") -> Report:
    """Run ``scenario`` through ``client`` (whose base URL is the target's); ``control_token``
    for a fake started with one; ``world`` names the world the base URL points into (report only).

    ``is_fake=False`` runs against the real service; None (the default) requires a fake and fails
    the run when the target does not answer ``GET /_fake/health`` as one: a failed probe never
    turns a run into a run against "the real service"."""
    target_is_fake = is_fake_target(client, control_token) if is_fake is None else is_fake
    report = Report(scenario.name, str(client.base_url), "fake" if is_fake is not False else "real", world=world)
    if not target_is_fake and is_fake is None:
        report.status = "failed"
        report.message = (f"{client.base_url} is no fake (GET /_fake/health): pass is_fake=False to run against "
                          "the real service")
        return report
    run = Run(client, is_fake=target_is_fake, credentials=credentials, report=report, control_token=control_token)
    try:
        run.mark_start()
        scenario.flow(run)
    except ScenarioSkipped as exc:
        report.status, report.message = "skipped", str(exc)
    except ScenarioFailed as exc:
        report.status, report.message = "failed", str(exc)
    except Exception as exc:  # an error in the scenario or the transport is a failure, reported
        report.status, report.message = "failed", repr(exc)
    return report


def duration_text(seconds: float) -> str:
    """``90061`` -> ``"1 d 1 h 1 min 1 s"`` (whole units, largest first): how a report says how far
    a run moved the clock (docs/testing.md's table of scenarios uses the same words)."""
    parts, rest = [], int(seconds)
    for unit, size in (("d", 86_400), ("h", 3_600), ("min", 60), ("s", 1)):
        if rest >= size:
            parts.append(f"{rest // size} {unit}")
            rest %= size
    return " ".join(parts) or f"{seconds:g} s"
