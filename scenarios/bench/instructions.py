"""Part ``instructions``: CPU instructions per served request, counted by valgrind's callgrind.

A req/s ratio on a shared or virtual machine scatters by 10-30 % from run to run (another job, the
other core's load generator, the host's neighbours); an instruction count does not. Each server
(the bare-Starlette twin, the fake, the fake with ``--journal-bytes 0``) is served exactly as the
HTTP part serves it, under ``valgrind --tool=callgrind`` with counting off; one keep-alive client
warms it up (past the journal's ring, so that shedding is in the steady state), then counting is
switched on for ``--instr-requests`` requests and the total is divided by them. The server's
whole work is counted - uvicorn, httptools, uvloop, the app, the journal - and nothing of the
client's. bare / fake is the speed ratio a core fully busy with either would give at equal
instructions per cycle.

Instructions per cycle are not equal, though: a request whose work touches memory that has left
the processor's caches (an entry the journal kept a ring ago, a large model's tables) waits for
it. With ``--instr-caches`` callgrind also simulates the caches - first levels of 32 KiB and a
last level of :data:`SIMULATED_LAST_LEVEL` (about one core's L2, which other cores do not
share) - and the part reports that level's misses per request (instruction reads, data
reads and writes), the figure that explains a req/s ratio below the instruction ratio.
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from .load import MixRequest
from .report import TARGET_HTTP_RATIO, TARGET_LEAN_RATIO, Options, Report
from .servers import FRAMEWORK_HEADERS, Server
from .subjects import load_fake_class, service_targets

#: the simulated last cache level of ``--instr-caches`` (bytes, ways, line): about one core's L2
SIMULATED_LAST_LEVEL = (512 * 1024, 8, 64)
CACHE_OPTIONS = ("--cache-sim=yes", "--I1=32768,8,64", "--D1=32768,8,64",
                 "--LL={},{},{}".format(*SIMULATED_LAST_LEVEL))
#: callgrind's events for misses of the last level: instruction reads, data reads, data writes
LAST_LEVEL_MISSES = ("ILmr", "DLmr", "DLmw")


#: uncounted requests before a count unless asked otherwise: past the default journal's 1,000
#: entries (its shedding is in the count), and past the service's own steady state (steady_warmup)
INSTR_WARMUP = 1_200


def steady_warmup(service: str, asked: int) -> int:
    """``asked``, or more: the requests after which the service's request costs what it will
    (``Fake.bench_steady_requests``: the relay's window of call records full, as it always is over
    HTTP after a few seconds), so that a count is of the state a served fake is in."""
    return max(asked, getattr(load_fake_class(service), "bench_steady_requests", 0))


def valgrind_missing() -> str | None:
    """Why the part cannot run here, or None."""
    for tool in ("valgrind", "callgrind_control"):
        if shutil.which(tool) is None:
            return f"{tool} is not on PATH (apt-get install valgrind)"
    return None


def bench_instructions(options: Options, report: Report) -> None:
    warmup = f"{options.instr_warmup:,}" if options.instr_warmup is not None else \
        f"{INSTR_WARMUP:,} (or more, until the service's steady state)"
    print(f"\n[instructions] callgrind: {options.instr_requests} counted requests per server after {warmup} "
          "uncounted", file=sys.stderr)
    why = valgrind_missing()
    if why:
        report.skip("instructions", "every service", why)
        return
    with tempfile.TemporaryDirectory() as tmp:
        for index, target in service_targets(options.targets, report.skip, "instructions"):
            try:
                row = _instructions_row(target, options, Path(tmp) / str(index))
            except Exception as exc:
                report.skip("instructions", target, f"{type(exc).__name__}: {exc}")
                continue
            report.instructions.append(row)
            print(f"  {row['service']}: bare {row['bare']:,.0f}, fake {row['fake']:,.0f}, "
                  f"jb0 {row['lean']:,.0f} instructions per request", file=sys.stderr)
            if "misses" in row:
                misses = row["misses"]
                print(f"  {row['service']}: bare {misses['bare']:,.0f}, fake {misses['fake']:,.0f}, "
                      f"jb0 {misses['lean']:,.0f} simulated L2 misses per request", file=sys.stderr)
            for label, key, limit in (("fake", "ratio", TARGET_HTTP_RATIO),
                                      ("--journal-bytes 0", "lean_ratio", TARGET_LEAN_RATIO)):
                report.target(f"instructions {row['service']}: bare / {label}", row[key], limit,
                              higher_is_better=True, unit="x")


def _instructions_row(target: str, options: Options, folder: Path) -> dict[str, Any]:
    import httpx

    folder.mkdir(parents=True)
    warmup = steady_warmup(target, INSTR_WARMUP) if options.instr_warmup is None else options.instr_warmup
    body_file = str(folder / "body")
    # the sample request's bytes over HTTP, from a natively served fake, as the HTTP part takes them
    with Server({"kind": "fake", "target": target, "settings": options.settings, "body_file": body_file}) as probe:
        info = probe.info
        check = httpx.request(info["method"], probe.url + info["path"], headers=info["headers"], timeout=60)
    if not 200 <= check.status_code < 300:
        raise RuntimeError(f"the sample request answered {check.status_code} over HTTP")
    Path(body_file).write_bytes(check.content)
    response_headers = {k: v for k, v in check.headers.items() if k.lower() not in FRAMEWORK_HEADERS}
    specs = {
        "bare": {"kind": "bare", "method": info["method"], "path": info["path"], "status": check.status_code,
                 "content_type": check.headers.get("content-type", ""), "body_file": body_file,
                 "response_headers": response_headers},
        "fake": {"kind": "fake", "target": target, "settings": options.settings, "body_file": body_file + ".fake"},
        "lean": {"kind": "fake", "target": target, "settings": options.settings, "body_file": body_file + ".lean",
                 "journal_bytes": 0},
    }
    row: dict[str, Any] = {"service": info["service"],
                           "request": f"{info['method']} {info['path']}", "response_bytes": len(check.content),
                           "counted_requests": options.instr_requests, "warmup_requests": warmup}
    misses = {}
    for name, spec in specs.items():
        counts = _count(spec, folder / name, info, warmup, options.instr_requests,
                        options.instr_caches, keep=_kept_dump(options.instr_dumps, info["service"], name))
        row[name] = counts["Ir"]
        if options.instr_caches:
            misses[name] = sum(counts[event] for event in LAST_LEVEL_MISSES)
    if misses:
        row["misses"] = misses
    row["ratio"] = row["bare"] / row["fake"]
    row["lean_ratio"] = row["bare"] / row["lean"]
    if options.instr_mix:  # the mixed part's requests in turn, served the same way
        spec = {**specs["fake"], "body_file": body_file + ".mix", "mix_file": body_file + ".mixed"}
        counts = _count(spec, folder / "mix", info, warmup, options.instr_requests, options.instr_caches,
                        keep=_kept_dump(options.instr_dumps, info["service"], "mix"),
                        mix_file=Path(body_file + ".mixed"))
        row["mix"] = counts["Ir"]
        row["mix_ratio"] = row["fake"] / row["mix"]
        if options.instr_caches:
            row.setdefault("misses", {})["mix"] = sum(counts[event] for event in LAST_LEVEL_MISSES)
    return row


def _kept_dump(folder: str | None, service: str, server: str) -> Path | None:
    """Where ``--instr-dumps`` keeps a server's dump (``jb0`` for the fake without the journal)."""
    if folder is None:
        return None
    Path(folder).mkdir(parents=True, exist_ok=True)
    return Path(folder) / f"{service}-{'jb0' if server == 'lean' else server}.callgrind"


def _count(spec: dict[str, Any], out: Path, info: dict[str, Any], warmup: int, requests: int,
           caches: bool = False, keep: Path | None = None, mix_file: Path | None = None) -> dict[str, float]:
    """Events per request of one server (``Ir``: instructions; with ``caches`` the simulated
    caches' misses too): served under callgrind, counted between a zero and a dump (copied to
    ``keep`` when given). The sample request, or with ``mix_file`` (where the served fake writes
    its mix) the mix's requests in turn, each answered with the status it answered when probed."""
    import httpx

    out.mkdir()
    wrapper = ["valgrind", "--tool=callgrind", "--instr-atstart=no", *(CACHE_OPTIONS if caches else ()),
               f"--callgrind-out-file={out}/callgrind.%p"]
    with Server(spec, timeout=900, wrapper=wrapper) as server, httpx.Client(timeout=600) as client:
        sample = MixRequest("sample", info["method"], info["path"], dict(info["headers"]),
                            expect=tuple(range(200, 300)))
        loop = [MixRequest(**item) for item in json.loads(mix_file.read_text())] if mix_file else [sample]
        turn = itertools.cycle(loop)

        def send(count: int) -> None:
            for _ in range(count):
                request = next(turn)
                answer = client.request(request.method, server.url + request.path, headers=request.headers,
                                        content=request.body.encode("latin-1") or None)
                if answer.status_code not in request.expect:
                    raise RuntimeError(f"{request.name} answered {answer.status_code}: {answer.text[:200]}")

        send(warmup)
        pid = str(server.proc.pid)
        for command in ("--instr=on", "--zero"):
            subprocess.run(["callgrind_control", command, pid], check=True, capture_output=True, timeout=120)
        send(requests)
        subprocess.run(["callgrind_control", "--dump", pid], check=True, capture_output=True, timeout=300)
        dump = out / f"callgrind.{pid}.1"  # the first dump asked for; callgrind.<pid> is the one at exit
        if not dump.exists():
            raise RuntimeError(f"callgrind wrote no dump ({server.stderr_tail()})")
        if keep is not None:
            shutil.copyfile(dump, keep)
        return {event: total / requests for event, total in _events(dump).items()}


def _events(dump: Path) -> dict[str, int]:
    """The totals of a callgrind dump by event (``Ir``, and the caches' misses when simulated)."""
    names = ["Ir"]
    with dump.open() as handle:
        for line in handle:
            if line.startswith("events:"):
                names = line.split()[1:]
            elif line.startswith(("totals:", "summary:")):
                return dict(zip(names, (int(value) for value in line.split()[1:]), strict=False))
    raise RuntimeError(f"no totals line in {dump.name}")


def _totals(dump: Path) -> int:
    """The instructions of a callgrind dump."""
    return _events(dump)["Ir"]


def render_instructions(report: Report) -> list[str]:
    if not report.instructions:
        return []
    first = report.instructions[0]
    warmups = [row["warmup_requests"] for row in report.instructions]
    warmup = f"{first['warmup_requests']:,}" if len(set(warmups)) == 1 else \
        ", ".join(f"{row['service']} {row['warmup_requests']:,}" for row in report.instructions)
    out = ["", f"Instructions per served request (callgrind; {first['counted_requests']} counted after "
               f"{warmup} uncounted, one keep-alive client; the whole server process)",
           f"{'service':<21} {'request':<40} {'bytes':>7} | {'bare':>9} {'fake':>9} {'bare/fake':>9} | "
           f"{'jb0':>9} {'bare/jb0':>8}"]
    for row in report.instructions:
        request = row["request"] if len(row["request"]) <= 40 else row["request"][:39] + "~"
        out.append(f"{row['service']:<21} {request:<40} {row['response_bytes']:>7} | {row['bare']:>9,.0f} "
                   f"{row['fake']:>9,.0f} {row['ratio']:>9.2f} | {row['lean']:>9,.0f} {row['lean_ratio']:>8.2f}")
    out.append("(bare/fake: the speed ratio a busy core would give at equal instructions per cycle; it does not "
               "move with the machine's load, as req/s does)")
    with_mix = [row for row in report.instructions if "mix" in row]
    if with_mix:
        missed = all("mix" in row.get("misses", {}) for row in with_mix)
        out += ["", "The realistic mix served (--instr-mix: the mixed part's requests in turn, one keep-alive client)",
                f"{'service':<21} {'sample':>9} {'mix':>9} {'sample/mix':>10}"
                + (f" | {'misses: sample':>14} {'mix':>6}" if missed else "")]
        for row in with_mix:
            line = f"{row['service']:<21} {row['fake']:>9,.0f} {row['mix']:>9,.0f} {row['mix_ratio']:>10.2f}"
            if missed:
                line += f" | {row['misses']['fake']:>14,.0f} {row['misses']['mix']:>6,.0f}"
            out.append(line)
        out.append("(sample/mix: the mixed part's ratio a busy core would give at equal instructions per cycle; a mix "
                   "runs more distinct code and touches more memory than one repeated request, so its req/s ratio "
                   "is lower)")
    with_misses = [row for row in report.instructions if "misses" in row]
    if with_misses:
        size = SIMULATED_LAST_LEVEL[0] // 1024
        out += ["", f"Simulated cache misses per served request (--instr-caches: a {size} KiB last level, about "
                    f"one core's L2; instruction reads + data reads + data writes that missed it)",
                f"{'service':<21} {'bare':>9} {'fake':>9} {'fake-bare':>9} | {'jb0':>9} {'jb0-bare':>8}"]
        for row in with_misses:
            misses = row["misses"]
            out.append(f"{row['service']:<21} {misses['bare']:>9,.0f} {misses['fake']:>9,.0f} "
                       f"{misses['fake'] - misses['bare']:>+9,.0f} | {misses['lean']:>9,.0f} "
                       f"{misses['lean'] - misses['bare']:>+8,.0f}")
        out.append("(each miss waits for the next level or for memory: tens to hundreds of nanoseconds where the "
                   "host's other work has evicted it, which the instruction count does not show)")
    return out
