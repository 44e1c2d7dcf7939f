"""The conformance report: every operation ``same``, ``differs`` (with each difference) or ``not
run`` (why); a score; as JSON (also the baseline of a later run), JUnit XML (CI dashboards) and
Markdown (a job summary, a pull request comment).

The score is the share of the operations *compared* that are the same (``same / (same +
differs)``); ``coverage`` is the share of all operations that were compared. With a baseline (an
earlier JSON report, or a file of difference keys, one a line) only differences not in it are
*new*, and only new ones fail the run. No credential reaches any report: every value of the
credentials given is replaced by ``[redacted]`` in whatever is written, whatever field it hides in.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from .compare import Difference
from .flows import FlowResult

REDACTED = "[redacted]"


@dataclass
class OperationResult:
    operation: str
    status: str  # "same" | "differs" | "not run"
    reason: str = ""
    differences: list[Difference] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    compared: int = 0  # exchange pairs compared
    example: str = ""  # what was sent, e.g. "GET /filings/17/ (real) | GET /filings/3/ (fake)"
    new: set[str] = field(default_factory=set)  # keys of differences not in the baseline

    def difference_keys(self) -> list[str]:
        return [difference.key(self.operation) for difference in self.differences]

    def to_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {"operation": self.operation, "status": self.status}
        if self.reason:
            found["reason"] = self.reason
        found.update(sources=self.sources, compared=self.compared)
        if self.example:
            found["example"] = self.example
        if self.differences:
            found["differences"] = [{**d.to_dict(), "key": d.key(self.operation),
                                     "new": d.key(self.operation) in self.new} for d in self.differences]
        return found


@dataclass
class ConformReport:
    service: str
    real_url: str
    document: str
    operations: list[OperationResult] = field(default_factory=list)
    scenarios: list[FlowResult] = field(default_factory=list)
    calls: int = 0
    max_calls: int = 0
    writes_allowed: bool = False
    cleanup: list[dict[str, Any]] = field(default_factory=list)
    run_id: str = ""
    started: str = ""
    duration_s: float = 0.0
    fake: dict[str, Any] = field(default_factory=dict)
    baseline: str = ""
    #: every credential value given: scrubbed from whatever the report writes
    secrets: list[str] = field(default_factory=list, repr=False)

    # -- figures ---------------------------------------------------------------------------------
    def count(self, status: str) -> int:
        return sum(result.status == status for result in self.operations)

    @property
    def score(self) -> float | None:
        compared = self.count("same") + self.count("differs")
        return round(self.count("same") / compared, 4) if compared else None

    @property
    def coverage(self) -> float | None:
        return round((self.count("same") + self.count("differs")) / len(self.operations), 4) \
            if self.operations else None

    def apply_baseline(self, keys: set[str], name: str) -> None:
        self.baseline = name
        for result in self.operations:
            result.new = {key for key in result.difference_keys() if key not in keys}

    def new_differences(self) -> list[tuple[str, Difference]]:
        return [(result.operation, difference) for result in self.operations for difference in result.differences
                if not self.baseline or difference.key(result.operation) in result.new]

    @property
    def exit_status(self) -> int:
        """0: no difference (none new, with a baseline); 1: differences, or nothing was compared at
        all (a nightly job that checks nothing must not pass)."""
        return 1 if self.new_differences() or self.score is None else 0

    # -- forms -----------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "service": self.service, "real_url": self.real_url, "document": self.document, "fake": self.fake,
            "run_id": self.run_id, "started": self.started, "duration_s": round(self.duration_s, 3),
            "score": self.score, "coverage": self.coverage,
            "counts": {status: self.count(status) for status in ("same", "differs", "not run")},
            "new_differences": len(self.new_differences()), "baseline": self.baseline or None,
            "calls": {"real": self.calls, "max": self.max_calls}, "writes_allowed": self.writes_allowed,
            "operations": [result.to_dict() for result in self.operations],
            "scenarios": [flow.to_dict() for flow in self.scenarios],
            "cleanup": self.cleanup,
        }

    def scrub(self, text: str) -> str:
        for secret in sorted(self.secrets, key=len, reverse=True):
            if len(secret) >= 4:
                text = text.replace(secret, REDACTED)
        return text

    def to_json(self) -> str:
        return self.scrub(json.dumps(self.to_dict(), indent=2))

    def to_junit(self) -> str:
        name = f"conform.{self.service}"
        cases = []
        for result in self.operations:
            case = f'  <testcase classname={quoteattr(name)} name={quoteattr(result.operation)}'
            if result.status == "not run":
                cases.append(f"{case}>\n    <skipped message={quoteattr(result.reason)}/>\n  </testcase>")
            elif result.status == "differs":
                failing = [d for d in result.differences
                           if not self.baseline or d.key(result.operation) in result.new]
                known = [d for d in result.differences if d not in failing]
                lines = [f"{d.kind}: {d.text}" for d in failing]
                body = f"{case}>\n"
                if failing:
                    body += (f"    <failure message={quoteattr(failing[0].text)} type=\"drift\">"
                             f"{escape(chr(10).join(lines))}</failure>\n")
                if known:
                    body += "    <system-out>" + escape("in the baseline: " + "; ".join(d.text for d in known)) \
                            + "</system-out>\n"
                cases.append(body + "  </testcase>")
            else:
                cases.append(f"{case}/>")
        failures = sum(1 for r in self.operations if r.status == "differs"
                       and (not self.baseline or r.new))
        head = (f'<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n<testsuite name={quoteattr(name)} '
                f'tests="{len(self.operations)}" failures="{failures}" errors="0" '
                f'skipped="{self.count("not run")}" time="{self.duration_s:.3f}">\n')
        return self.scrub(head + "\n".join(cases) + "\n</testsuite>\n</testsuites>\n")

    def to_markdown(self) -> str:
        score = "n/a" if self.score is None else f"{self.score:.0%}"
        lines = [f"# Is the fake still right? `{self.service}`", "",
                 f"Against `{self.real_url}`, document: {self.document}. Score **{score}** "
                 f"({self.count('same')} same, {self.count('differs')} differ, {self.count('not run')} not run; "
                 f"{self.calls} of at most {self.max_calls} calls to the real service"
                 + (f"; baseline `{self.baseline}`: {len(self.new_differences())} new" if self.baseline else "")
                 + ").", "", "| operation | result | details |", "|---|---|---|"]
        for result in self.operations:
            if result.status == "differs":
                details = "<br>".join(("**new** " if self.baseline and d.key(result.operation) in result.new else "")
                                      + _cell(d.text) for d in result.differences)
            else:
                details = _cell(result.reason or ", ".join(result.sources))
            lines.append(f"| `{result.operation}` | {result.status} | {details} |")
        if self.scenarios:
            lines += ["", "| scenario | real | fake |", "|---|---|---|"]
            lines += [f"| `{flow.name}` | {flow.real}{': ' + _cell(flow.real_message) if flow.real_message else ''} | "
                      f"{flow.fake}{': ' + _cell(flow.fake_message) if flow.fake_message else ''} |"
                      for flow in self.scenarios]
        if self.cleanup:
            lines += ["", "Cleaned up: " + ", ".join(f"`{c['path']}` {c['result']}" for c in self.cleanup)]
        return self.scrub("\n".join(lines) + "\n")

    def render(self) -> str:
        """The terminal's summary: one line per operation that differs or did not run."""
        score = "n/a" if self.score is None else f"{self.score:.0%}"
        lines = [f"conform {self.service}: {self.count('same')} same, {self.count('differs')} differ, "
                 f"{self.count('not run')} not run (score {score}; {self.calls}/{self.max_calls} real calls)"]
        for result in self.operations:
            if result.status == "differs":
                for difference in result.differences:
                    new = self.baseline and difference.key(result.operation) in result.new
                    lines.append(f"  DIFFERS {result.operation}: {difference.text}" + ("  [new]" if new else ""))
        for result in self.operations:
            if result.status == "not run":
                lines.append(f"  not run {result.operation}: {result.reason}")
        if self.score is None:
            lines.append("  NOTHING COMPARED: no operation ran on both sides (see why above); exit status 1")
        for flow in self.scenarios:
            if flow.real != "passed" or flow.fake != "passed":
                lines.append(f"  scenario {flow.name}: real {flow.real}"
                             + (f" ({flow.real_message[:160]})" if flow.real_message else "")
                             + f", fake {flow.fake}" + (f" ({flow.fake_message[:160]})" if flow.fake_message else ""))
        return self.scrub("\n".join(lines))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")[:300]


def load_baseline(path: str) -> set[str]:
    """Difference keys from an earlier JSON report, or from a text file (one key a line, # comments)."""
    text = Path(path).read_text(encoding="utf-8")
    try:
        document = json.loads(text)
    except ValueError:
        return {line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")}
    if isinstance(document, list):
        return {str(key) for key in document}
    if not isinstance(document, dict) or not isinstance(document.get("operations"), list):
        raise ValueError(f"{path} is neither a report of `fakes conform --json` nor a list of difference keys")
    return {d["key"] for op in document["operations"] for d in op.get("differences", []) if "key" in d}
