"""Benchmark of the fakes: HTTP throughput and latency against the bare-Starlette floor, in-process
call rates, fresh-fake start-up, and scale (memory, deep pages, a bounded journal).

    python -m scenarios bench [--duration 5] [--connections 32] [--only filings] [--json out.json]
    python -m scenarios bench --quick          # short runs, small data: a smoke test of the harness

Every figure comes from one run on one machine; see docs/benchmark.md for what each one means.

How the HTTP figures are taken: each server (a fake, or the bare Starlette app returning the
fake's exact response bytes) runs in its own process (``python -m scenarios.bench _serve``) with
uvicorn, one worker, on 127.0.0.1, exactly as ``fakes serve`` runs it; the load generator is
``wrk`` when it is on PATH (C, another process), else a raw-socket asyncio generator in yet another
process. The services are discovered from :mod:`fakes.registry`: a new service is benchmarked
through its ``sample_request()`` and ``auth_headers()`` hooks with nothing to add here.

The targets of issue 7 are reported with pass/miss marks; nothing here asserts them.
"""

from __future__ import annotations

from .cli import main
from .subjects import KERNEL

__all__ = ["KERNEL", "main"]
