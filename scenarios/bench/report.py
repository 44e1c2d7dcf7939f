"""Options of a run, the report it fills, and the targets it reports (never asserts)."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

from .load import LoadConfig

# -- targets of issues 7 and 13 (reported, never asserted) ----------------------------------------------
TARGET_HTTP_RATIO = 0.85  # each sample request >= 0.85 x the bare-Starlette floor, the default journal (issue 37)
TARGET_LEAN_RATIO = 0.9  # and >= 0.9 x with `--journal-bytes 0` (no headers and bodies kept)
TARGET_P99_RATIO = 2.0  # a fake's p99 latency within 2 x the floor's at the same load
TARGET_CYCLE_MS = 25.0  # `with fake.serve() as url`: start, first answer, stop
TARGET_FRESH_MS = 20.0  # a fresh fake created and answering its first request
TARGET_FILINGS_RSS_MB = 300.0  # full-scale filings, resident
TARGET_PAGE_MS = 10.0  # any page of the full-scale filings catalogue
JOURNAL_GROWTH_LIMIT_MB = 8.0  # RSS growth allowed once the journal ring is full ("bounded")

#: settings the benchmark applies unless ``--set`` says otherwise (service -> key -> CLI value)
BENCH_SETTINGS: dict[str, dict[str, str]] = {"filings": {"scale": "full"}}
QUICK_SETTINGS: dict[str, dict[str, str]] = {"filings": {"scale": "small"}}


PARTS = ("http", "inprocess", "scale", "startup", "worlds", "operations", "mixed", "peers", "fleet", "density",
         "instructions")
DEFAULT_PARTS = ("http", "inprocess", "scale", "startup", "worlds", "operations", "mixed")


@dataclass
class Options:
    targets: list[str]
    settings: dict[str, dict[str, str]]
    load: LoadConfig
    parts: set[str]
    inproc_seconds: float
    fresh_runs: int
    journal_requests: int
    journal_size: int
    inbox_messages: int
    page_repeats: int
    random_pages: int
    quick: bool
    cycles: int = 50
    worlds: int = 200
    #: timed calls of each public operation in the operations part
    op_repeats: int = 200
    #: another checkout of the project: the HTTP part serves each fake from it too, runs alternating
    against: str | None = None
    #: the fleet part: fleets of 1 .. this many replicas behind HAProxy, and the worlds spread over them
    fleet_replicas: int = 3
    fleet_worlds: int = 300
    #: the density part: touched worlds per service held at once by one `fakes serve`
    density_worlds: int = 10_000
    #: the mixed part's keep-alive connections per service
    mix_connections: int = 50
    #: the instructions part: requests counted per server under callgrind
    instr_requests: int = 300
    instr_warmup: int | None = None  # None: per service, instructions.steady_warmup (1,200 or more)
    instr_caches: bool = False  # the instructions part also simulates the caches (L2-sized last level)
    instr_dumps: str | None = None  # the instructions part keeps each server's callgrind dump here
    instr_mix: bool = False  # the instructions part also counts each fake serving its realistic mix


@dataclass
class Report:
    machine: dict[str, Any]
    config: dict[str, Any]
    http: list[dict[str, Any]] = field(default_factory=list)
    inprocess: list[dict[str, Any]] = field(default_factory=list)
    scale: dict[str, Any] = field(default_factory=dict)
    startup: list[dict[str, Any]] = field(default_factory=list)
    startup_client_ms: float | None = None
    worlds: list[dict[str, Any]] = field(default_factory=list)
    operations: list[dict[str, Any]] = field(default_factory=list)
    fleet: dict[str, Any] = field(default_factory=dict)
    density: dict[str, Any] = field(default_factory=dict)
    mixed: list[dict[str, Any]] = field(default_factory=list)
    instructions: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    targets: list[dict[str, Any]] = field(default_factory=list)

    def skip(self, part: str, what: str, why: str) -> None:
        self.skipped.append({"part": part, "what": what, "why": why})
        print(f"  skipped {part} {what}: {why}", file=sys.stderr)

    def target(self, name: str, value: float | None, limit: float, *, higher_is_better: bool, unit: str) -> None:
        ok = None if value is None else (value >= limit if higher_is_better else value < limit)
        self.targets.append({"name": name, "value": value, "target": limit, "unit": unit,
                             "op": ">=" if higher_is_better else "<", "pass": ok})

    def to_dict(self) -> dict[str, Any]:
        return {"machine": self.machine, "config": self.config, "http": self.http, "inprocess": self.inprocess,
                "scale": self.scale, "startup": self.startup, "startup_httpx_client_ms": self.startup_client_ms,
                "worlds": self.worlds, "operations": self.operations, "fleet": self.fleet,
                "density": self.density, "mixed": self.mixed, "instructions": self.instructions,
                "targets": self.targets, "skipped": self.skipped}


