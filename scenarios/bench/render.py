"""The text report."""

from __future__ import annotations

from typing import Any

from .density import render_density
from .fleet import render_fleet
from .instructions import render_instructions
from .measure import mb
from .mixed import render_mixed
from .operations import render_operations
from .report import TARGET_CYCLE_MS, TARGET_FRESH_MS, TARGET_HTTP_RATIO, TARGET_LEAN_RATIO, Report
from .subjects import KERNEL
from .worlds import render_worlds


def _fmt(value: Any, spec: str = ".1f", none: str = "-") -> str:
    if value is None:
        return none
    return format(value, spec)


def _mark(ok: bool | None) -> str:
    return {True: "pass", False: "MISS", None: "n/a"}[ok]


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "~"


def _lean(row: dict[str, Any]) -> str:
    """The journal-bytes-0 columns of an HTTP row (older JSON reports have none)."""
    lean = row.get("lean")
    if lean is None:
        return ""
    mark = _mark(row["lean_ratio"] >= TARGET_LEAN_RATIO) if not row["service"].startswith(KERNEL) else ""
    return f"{lean['rps']:>9.0f} {row['lean_ratio']:>5.2f} {row['lean_ratio_median_of_rounds']:>5.2f} {mark:>5}"


def render(report: Report) -> str:
    m = report.machine
    out = [
        "contract-fakes benchmark",
        f"machine: {m['nproc']} CPUs ({m['cpu_model']}), Python {m['python']}, starlette {m.get('starlette')}, "
        f"uvicorn {m.get('uvicorn')} ({m['uvicorn_loop_http']}); load average {m['loadavg_at_start']} at the "
        f"start, {m.get('loadavg_at_end')} at the end (anything else running skews the figures)",
    ]
    if report.http:
        out += ["", f"1. Over HTTP - load generator: {report.config['load']}",
                f"{'service':<21} {'request':<40} {'bytes':>7} | {'bare req/s':>10} {'p50':>6} {'p99':>6} | "
                f"{'fake req/s':>10} {'p50':>6} {'p99':>6} | {'ratio':>5} {'pairs':>5} "
                f"{'>=' + str(TARGET_HTTP_RATIO):>6} {'RSS MB':>7} | "
                f"{'jb0 req/s':>9} {'ratio':>5} {'pairs':>5} {'>=' + str(TARGET_LEAN_RATIO):>5}"]
        for row in report.http:
            bare, fake = row["bare"], row["fake"]
            errors = fake["non_2xx"] + fake["socket_errors"] + bare["non_2xx"] + bare["socket_errors"]
            mark = _mark(row["ratio"] >= TARGET_HTTP_RATIO) if not row["service"].startswith(KERNEL) else ""
            out.append(
                f"{row['service']:<21} {_short(row['request'], 40):<40} {row['response_bytes']:>7} | "
                f"{bare['rps']:>10.0f} {bare['p50_ms']:>6.2f} {bare['p99_ms']:>6.2f} | "
                f"{fake['rps']:>10.0f} {fake['p50_ms']:>6.2f} {fake['p99_ms']:>6.2f} | "
                f"{row['ratio']:>5.2f} {row['ratio_median_of_rounds']:>5.2f} {mark:>6} "
                f"{_fmt(mb(row['rss_kb'])):>7} | " + _lean(row) + (f"  ({errors} errors!)" if errors else ""))
        out.append("(latencies in ms; ratio = best fake req/s / best bare req/s, pairs = median of the ratios of "
                   "the runs made one after the other; jb0 = the same fake with --journal-bytes 0, no headers and "
                   "bodies kept;\n bare = plain Starlette answering the same bytes and "
                   "headers on the same path, on uvicorn's own protocol: uvloop + httptools, one process)")
        out += _quiet_waits(report.http)
        with_cpu = [row for row in report.http if row["fake"].get("cpu_ratio")]
        if with_cpu:
            out += ["", "Server CPU per request (user + system of the serving process / requests answered, median "
                        "of the rounds; bare / fake is the speed ratio a fully busy core would give)",
                    f"{'service':<21} {'bare us':>8} {'fake us':>8} {'bare/fake':>9} | {'jb0 us':>8} {'bare/jb0':>8}"]
            for row in with_cpu:
                lean = row["lean"]
                out.append(f"{row['service']:<21} {row['bare']['server_cpu_us']:>8.1f} "
                           f"{row['fake']['server_cpu_us']:>8.1f} {row['fake']['cpu_ratio']:>9.2f} | "
                           f"{_fmt(lean.get('server_cpu_us')):>8} {_fmt(lean.get('cpu_ratio'), '.2f'):>8}")
        with_peers = [row for row in report.http if row.get("peers")]
        if with_peers:
            names = sorted({name for row in with_peers for name in row["peers"]})
            out += ["", "Peers in the same run (the very bytes of each sample request; fake req/s / peer req/s)",
                    f"{'service':<21} {'fake req/s':>10} {'/ bare':>7} | "
                    + " | ".join(f"{name:<10} {'req/s':>7} {'p99':>6} {'fake /':>6}" for name in names)]
            for row in with_peers:
                cells = []
                for name in names:
                    peer = row["peers"].get(name)
                    if peer is None or "rps" not in peer:
                        cells.append(f"{'-':<10} {'-':>7} {'-':>6} {'-':>6}")
                        continue
                    same = "" if peer["same_bytes"] else "*"
                    cells.append(f"{peer['version'][:9] + same:<10} {peer['rps']:>7.0f} {peer['p99_ms']:>6.2f} "
                                 f"{peer['fake_ratio']:>6.2f}")
                out.append(f"{row['service']:<21} {row['fake']['rps']:>10.0f} {row['ratio']:>7.2f} | "
                           + " | ".join(cells))
            out.append("(peer column: version; * = its body differs from the fake's bytes (re-serialised JSON); "
                       "p99 in ms)")
        against_rows = [row for row in report.http if row.get("against", {}).get("rps")]
        if against_rows:
            out += ["", f"Against {report.config.get('against')} (the same fakes served from that checkout, "
                        "in runs alternating with this one's)",
                    f"{'service':<21} {'this req/s':>10} {'/ bare':>7} | {'that req/s':>10} {'/ bare':>7} | "
                    f"{'this/that':>9} {'pairs':>6}"]
            for row in against_rows:
                that = row["against"]
                same = "" if that["same_bytes"] else "  (its bytes differ)"
                out.append(f"{row['service']:<21} {row['fake']['rps']:>10.0f} {row['ratio']:>7.2f} | "
                           f"{that['rps']:>10.0f} {that['ratio_to_bare']:>7.2f} | {that['fake_ratio']:>9.3f} "
                           f"{that['fake_ratio_median_of_rounds']:>6.3f}{same}")
            out.append("(this/that = best req/s of this checkout / best of that one; pairs = median of the ratios of "
                       "runs made one after the other: the figure to trust on a noisy machine)")
    if report.inprocess:
        out += ["", "2. In process (sequential calls of the sample request)",
                f"{'service':<14} {'client()/s':>10} {'async/s':>8} | {'ASGI us/req':>11} {'bare':>5} | "
                f"{'fresh ms':>8} {'p90':>6} {'create':>6} {'<20ms':>5} | {'new process ms':>14} {'import':>6}"]
        for row in report.inprocess:
            mark = _mark(row["fresh_median_ms"] < TARGET_FRESH_MS) if row["service"] != KERNEL else ""
            out.append(f"{row['service']:<14} {row['sync_calls_per_s']:>10.0f} {row['async_calls_per_s']:>8.0f} | "
                       f"{row['asgi_us_per_request']:>11.0f} {row['bare_asgi_us_per_request']:>5.0f} | "
                       f"{row['fresh_median_ms']:>8.2f} {row['fresh_p90_ms']:>6.2f} "
                       f"{row['fresh_create_median_ms']:>6.2f} {mark:>5} | "
                       f"{_fmt(row['cold_process_ms'], '.0f'):>14} {_fmt(row['cold_import_ms'], '.0f'):>6}")
        out.append("(ASGI = the app called directly, as uvicorn calls it; bare = plain Starlette, same bytes;\n"
                   " fresh = median of new fake + auth_headers() + first sample request through fake.client(), "
                   "default settings; create = the constructor alone;\n new process = the same in a new "
                   "interpreter, imports included: what a test session's first fixture pays)")
    if report.scale:
        out += ["", "3. Scale"]
        filings = report.scale.get("filings")
        if filings:
            out.append(f"filings ({', '.join(f'{k}={v}' for k, v in filings['settings'].items()) or 'defaults'}): "
                       f"RSS {_fmt(filings.get('rss_mb'))} MB served (idle {_fmt(mb(filings.get('rss_idle_kb')))}, "
                       f"peak {_fmt(mb(filings.get('rss_peak_kb')))}), "
                       f"built in {_fmt(filings.get('build_s'), '.2f')} s, "
                       f"catalogue {filings.get('catalogue_count', '-')}")
            for key in ("first_page", "last_page"):
                page = filings.get(key)
                if page:
                    out.append(f"  {key.replace('_', ' ')}: {page['once_ms']:.2f} ms the first time, "
                               f"{page['again_median_ms']:.2f} ms again (median; max {page['again_max_ms']:.2f}) "
                               f"- {page['bytes']} bytes, status {page['status']}, {page['path']}")
            if filings.get("random_pages"):
                sampled = filings["random_pages"]
                out.append(f"  {sampled['count']} random pages of {filings['page_count']:,}, once each: "
                           f"p50 {sampled['median_ms']:.2f} ms, p99 {sampled.get('p99_ms', 0):.2f} ms, "
                           f"max {sampled['max_ms']:.2f} ms (CPU p50 {sampled.get('cpu_median_ms', 0):.2f}, "
                           f"max {sampled.get('cpu_max_ms', 0):.2f}) "
                           f"(first request of the process: {filings['warmup_ms']:.0f} ms)")
        inbox = report.scale.get("member_export_inbox")
        if inbox:
            out.append(f"member-export inbox of {inbox['messages']:,} messages: {inbox['pages']:,} pages of "
                       f"{inbox['page_size']} to the end in {inbox['seconds']:.2f} s "
                       f"({inbox['ms_per_page']:.2f} ms/page; first {inbox['first_page_ms']:.1f} ms, "
                       f"slowest after it {inbox['max_page_ms']:.2f} ms, "
                       f"last page {inbox['last_page_ms']:.2f} ms), {inbox['records']:,} records seen")
        journal = report.scale.get("journal")
        if journal:
            out.append(f"journal: {journal['requests']:,} requests through FakeApp in {journal['seconds']:.1f} s "
                       f"({journal['us_per_request']:.1f} us each); len {journal['len']} (size {journal['size']}), "
                       f"total {journal['total']:,}; RSS {_fmt(mb(journal['rss_full_kb']))} MB when full -> "
                       f"{_fmt(mb(journal['rss_end_kb']))} MB at the end: "
                       f"{'bounded' if journal['bounded'] else 'NOT bounded'}")
    if report.startup:
        out += ["", "4. Start-up: `with fake.serve() as url`, first answer over a new connection, stop "
                f"(ms, p50 / p90 of {report.startup[0]['cycles']} fresh fakes each)",
                f"{'service':<14} {'cycle':>6} {'p90':>6} | {'start':>6} {'first':>6} {'stop':>6} | {'<25ms':>5}"]
        for row in report.startup:
            mark = _mark(row["cycle_p50_ms"] < TARGET_CYCLE_MS) if row["service"] != KERNEL else ""
            out.append(f"{row['service']:<14} {row['cycle_p50_ms']:>6.2f} {row['cycle_p90_ms']:>6.2f} | "
                       f"{row['start_p50_ms']:>6.2f} {row['first_p50_ms']:>6.2f} {row['stop_p50_ms']:>6.2f} | "
                       f"{mark:>5}")
        if report.startup_client_ms is not None:
            out.append(f"(a new httpx.Client() costs {report.startup_client_ms:.1f} ms by itself, in the test's own "
                       "code: build one per session, not per test)")
    out += render_worlds(report)
    out += render_operations(report)
    out += render_mixed(report)
    out += render_fleet(report)
    out += render_density(report)
    out += render_instructions(report)
    if report.targets:
        out += ["", "Targets (reported, not asserted)"]
        for t in report.targets:
            value = t["value"]
            shown = "-" if value is None else (f"{value:.2f}" if isinstance(value, float) else str(value))
            out.append(f"  [{_mark(t['pass']):>4}] {t['name']:<48} {shown:>9} {t['unit']:<7} "
                       f"(target {t['op']} {t['target']})")
    if report.skipped:
        out += ["", "Skipped"]
        out += [f"  {s['part']} {s['what']}: {_short(s['why'], 160)}" for s in report.skipped]
    return "\n".join(out)


def _quiet_waits(rows: list[dict[str, Any]]) -> list[str]:
    """A line on the waits for idle cores before the runs (``--quiet-wait``), when there were any."""
    waits = [wait for row in rows for server in [row.get(name) for name in ("bare", "fake", "lean")]
             + list(row.get("peers", {}).values()) if server for wait in server.get("quiet_waits_s", ())]
    if not waits or not max(waits):
        return []
    return [f"(each run began on idle cores: waited {sum(waits):.1f} s in all before {len(waits)} runs, "
            f"at most {max(waits):.2f} s before one)"]
