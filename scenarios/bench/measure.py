"""Small measuring helpers: percentiles, process memory, load average, the machine line."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import platform
from collections.abc import Sequence
from typing import Any

#: the benchmark's package as this process imported it (`scenarios.bench` in a checkout,
#: `fakes.scenarios.bench` once installed): its child processes run `python -m BENCH_PACKAGE ...`
BENCH_PACKAGE = __package__ or "scenarios.bench"


def percentile(sorted_values: Sequence[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    k = (len(sorted_values) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


def proc_status_kb(pid: int | str = "self") -> dict[str, int]:
    """VmRSS / VmHWM (peak) of a process in kB, from /proc (Linux); {} elsewhere."""
    found: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    found[key] = int(value.split()[0])
    except OSError:
        pass
    return found


def proc_cpu_seconds(pid: int | str = "self") -> float | None:
    """User + system CPU seconds a process has used so far, from /proc (Linux); None elsewhere."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rpartition(")")[2].split()
    except OSError:
        return None
    # after the command's closing parenthesis, utime and stime are the 12th and 13th fields
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def mb(kb: int | None) -> float | None:
    return None if kb is None else round(kb / 1024, 1)


def loadavg() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def machine_info() -> dict[str, Any]:
    cpu = ""
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as handle:
        for line in handle:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    versions = {}
    for package in ("starlette", "uvicorn", "httpx"):
        with contextlib.suppress(Exception):
            versions[package] = importlib.import_module(package).__version__
    from fakes.kernel.server import stack_description

    return {
        "loadavg_at_start": loadavg(),
        "nproc": os.cpu_count(),
        "cpu_affinity": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "cpu_model": cpu or platform.processor(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "uvicorn_loop_http": stack_description(),
        **versions,
    }


