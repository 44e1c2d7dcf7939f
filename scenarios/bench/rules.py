"""Micro-benchmark of fault and stub matching: what a request pays for rules, measured in process.

``python -m scenarios.bench.rules`` prints, per case, the microseconds one request spends in rule
matching (building the live request, picking a fault, picking a stub before the model), the best
of a few timeit runs. With no rule at all the app pays one check of two flags and builds nothing.
The cases hold 100 rules each (docs/benchmark.md, "Stubs and faults")."""

from __future__ import annotations

import argparse
import timeit
from collections.abc import Callable, Coroutine
from typing import Any

from fakes.kernel.faults import FaultSet
from fakes.kernel.live import LiveRequest
from fakes.kernel.stubs import StubSet

RULES = 100


def _settled(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """The result of a coroutine that never waits (no body to read): no event loop needed."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    raise RuntimeError("the coroutine waited")


def _scope(method: str, target: str, headers: dict[str, str] | None = None) -> tuple[dict[str, Any], str]:
    path, _, query = target.partition("?")
    pairs = [(b"host", b"testserver"), (b"user-agent", b"python-httpx/0.28"), (b"accept", b"*/*")]
    pairs += [(name.lower().encode(), value.encode()) for name, value in (headers or {}).items()]
    return {"type": "http", "method": method, "path": path, "query_string": query.encode(), "headers": pairs}, path


async def _receive() -> dict[str, Any]:
    return {"type": "http.request", "body": b'{"tag": "final", "n": 1}', "more_body": False}


def _case(stubs: list[dict[str, Any]], faults: list[dict[str, Any]], method: str, target: str,
          headers: dict[str, str] | None = None) -> Callable[[], Any]:
    stub_set, fault_set = StubSet(max_latency_ms=1000), FaultSet(0)
    for spec in stubs:
        stub_set.add(spec)
    for spec in faults:
        fault_set.add(spec)
    scope, path = _scope(method, target, headers)

    def one_request() -> Any:
        live = LiveRequest(scope, path, _receive, 1 << 20)
        found = _settled(fault_set.pick(live)) if fault_set.armed else None
        return found or (_settled(stub_set.pick(live, "before")) if stub_set.armed else None)

    assert fault_set.armed or stub_set.armed or not (stubs or faults)
    return one_request


def cases() -> dict[str, Callable[[], Any]]:
    literal = [{"request": {"method": "GET", "path": f"/admin/things/{i}"}} for i in range(RULES)]
    templates = [{"request": {"method": "GET", "path": f"/api/v1/resource{i}/{{id}}"}} for i in range(RULES)]
    globs = [{"request": {"path": f"/service{i}/*"}} for i in range(RULES)]
    same_path_query = [{"request": {"method": "GET", "path": "/items", "query": {"page": str(i)}}}
                       for i in range(RULES)]
    same_path_header = [{"request": {"method": "GET", "path": "/items", "headers": {"X-Api-Key": f"key-{i}"}}}
                        for i in range(RULES)]
    regexes = [{"request": {"path": {"matches": f"/reports/r{i}/[0-9]+"}}} for i in range(RULES)]
    mixed_stubs = [*templates[:25], *globs[:25]]
    mixed_faults = [{"path": f"/admin/things/{i}", "status": 503, "request": {"query": {"page": "2"}}}
                    for i in range(25)] + [{"path": "/items", "status": 500,
                                            "request": {"headers": {"X-Api-Key": f"revoked-{i}"}}}
                                           for i in range(25)]
    body_rules = [{"request": {"method": "POST", "path": "/items", "query": {"page": str(i)}, "json": {"tag": "x"}}}
                  for i in range(RULES)]
    return {
        "the live request alone (no rule is judged)": _case([], [], "GET", "/items?page=7"),
        "100 literal paths, none matches": _case(literal, [], "GET", "/items?page=7"),
        "100 literal paths, one matches": _case(literal, [], "GET", "/admin/things/57"),
        "100 templates, none matches": _case(templates, [], "GET", "/items?page=7"),
        "100 templates, the last matches": _case(templates, [], "GET", "/api/v1/resource0/42"),
        "100 globs, none matches": _case(globs, [], "GET", "/items?page=7"),
        "100 regexes, none matches": _case(regexes, [], "GET", "/reports/x/1"),
        "100 on one path, query: none matches": _case(same_path_query, [], "GET", "/items?page=x"),
        "100 on one path, query: the oldest matches": _case(same_path_query, [], "GET", "/items?page=0"),
        "100 on one path, headers: none matches": _case(same_path_header, [], "GET", "/items",
                                                        {"X-Api-Key": "other"}),
        "50 faults + 50 stubs, none matches": _case(mixed_stubs, mixed_faults, "GET", "/items?page=7",
                                                    {"X-Api-Key": "fine"}),
        "100 with body criteria, query fails first": _case(body_rules, [], "POST", "/items?page=x"),
    }


def _app_check() -> Callable[[], Any]:
    """What the app does per request when no rule is set: one check of two flags."""
    from examples.notes import NotesFake

    fake = NotesFake()
    return lambda: fake.faults.armed or fake.stubs.armed


def _in_process(rules: bool) -> Callable[[], Any]:
    """A whole in-process request (GET /notes of the notes example), with or without 100 rules
    that do not match it."""
    from examples.notes import NotesFake

    fake = NotesFake()
    if rules:
        for index in range(50):
            fake.add_fault(path=f"/admin/things/{index}", status=503, request={"query": {"page": "2"}})
            fake.stub("GET", f"/api/v1/resource{index}/{{id}}")
    client = fake.client()
    return lambda: client.get("/notes")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m scenarios.bench.rules", description=__doc__.split("\n\n")[0])
    parser.add_argument("--number", type=int, default=20_000, help="requests per timing (default 20000)")
    parser.add_argument("--repeat", type=int, default=5, help="timings per case; the best counts (default 5)")
    args = parser.parse_args()
    timed = {"the app's check with no rule set": _app_check(), **cases()}
    for name, request in timed.items():
        best = min(timeit.repeat(request, number=args.number, repeat=args.repeat)) / args.number
        print(f"{name:<50} {best * 1e6:8.2f} µs per request")
    # a whole request varies more than matching costs on a busy machine: the two alternate, best of each
    whole = {"in process, GET /notes, no rule": _in_process(False),
             "in process, GET /notes, 100 rules (none matches)": _in_process(True)}
    number = max(args.number // 20, 1)
    best = dict.fromkeys(whole, float("inf"))
    for _ in range(args.repeat):
        for name, request in whole.items():
            best[name] = min(best[name], min(timeit.repeat(request, number=number, repeat=2)) / number)
    for name, seconds in best.items():
        print(f"{name:<50} {seconds * 1e6:8.2f} µs per request")


if __name__ == "__main__":
    main()
