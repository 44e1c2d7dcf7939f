"""Part 3, scale: the full filings catalogue, a 100,000-message inbox, a million journal entries."""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from .measure import BENCH_PACKAGE, mb, percentile, proc_status_kb
from .report import JOURNAL_GROWTH_LIMIT_MB, TARGET_FILINGS_RSS_MB, TARGET_PAGE_MS, Options, Report
from .servers import Server
from .subjects import KERNEL, build_fake, importable


def bench_scale(options: Options, report: Report) -> None:
    print("\n[3/6] scale", file=sys.stderr)
    for service, scale in (("filings", _scale_filings), ("member-export", _scale_inbox)):
        if service not in options.targets:
            report.skip("scale", service, "not selected (--only)")
        elif why := importable(service):
            report.skip("scale", service, why)
        else:
            scale(options, report)
    _scale_journal(options, report)


def _scale_filings(options: Options, report: Report) -> None:
    figures: dict[str, Any] = {"settings": options.settings.get("filings", {})}
    report.scale["filings"] = figures
    # Resident memory of the served process: from the HTTP run if there was one, else serve it now.
    served = next((row for row in report.http if row["service"] == "filings"), None)
    if served is not None:
        figures["rss_idle_kb"] = served["rss_idle_kb"]
        figures["rss_after_load_kb"] = served["fake"]["rss_kb"]
        figures["rss_peak_kb"] = served["fake"]["rss_peak_kb"]
        figures["build_s"] = served["build_s"]
    else:
        try:
            with tempfile.TemporaryDirectory() as tmp, Server({
                    "kind": "fake", "target": "filings", "settings": options.settings,
                    "body_file": str(Path(tmp) / "body")}) as server:
                memory = server.memory()
                figures.update(rss_idle_kb=memory.get("VmRSS"), rss_peak_kb=memory.get("VmHWM"),
                               build_s=server.info["build_s"])
        except Exception as exc:
            report.skip("scale", "filings RSS", str(exc))
    rss = figures.get("rss_after_load_kb") or figures.get("rss_idle_kb")
    figures["rss_mb"] = mb(rss)
    scale = options.settings.get("filings", {}).get("scale", "default")
    report.target(f"filings resident memory (scale={scale})", mb(rss), TARGET_FILINGS_RSS_MB,
                  higher_is_better=False, unit="MB")

    # First, last and random pages of the catalogue, in a new process (no network in the figure).
    spec = {"settings": options.settings, "repeats": options.page_repeats, "random_pages": options.random_pages}
    done = subprocess.run([sys.executable, "-m", BENCH_PACKAGE, "_pages", json.dumps(spec)],
                          capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        report.skip("scale", "filings pages", done.stderr.strip()[-600:])
        return
    pages = json.loads(done.stdout.strip().splitlines()[-1])
    figures.update(pages)
    worst = max(pages["first_page"]["once_ms"], pages["last_page"]["once_ms"], pages["random_pages"]["max_ms"])
    report.target(f"filings any page, worst uncached (scale={scale})", worst, TARGET_PAGE_MS,
                  higher_is_better=False, unit="ms")
    # the same pages in CPU time of the serving thread: what a page costs, without the time the
    # process waited for a core while other processes ran (the wall figure on a shared machine)
    report.target(f"filings random page, worst CPU time (scale={scale})", pages["random_pages"]["cpu_max_ms"],
                  TARGET_PAGE_MS, higher_is_better=False, unit="ms")


def child_pages(spec: dict[str, Any]) -> int:
    """Time pages of the filings sample listing, each first asked once (nothing of it cached by the
    fake yet), then again (``repeats`` times: what a poller of the same page gets)."""
    import random

    fake = build_fake("filings", spec["settings"])
    headers = dict(fake.auth_headers())
    _method, sample = fake.sample_request()

    with fake.client() as client:
        def timed(path: str) -> tuple[float, Any]:
            t0 = time.perf_counter()
            response = client.get(path, headers=headers)
            return (time.perf_counter() - t0) * 1000, response

        # the first request of a process builds what every later one shares; not a page's cost
        warmup_ms, _ = timed(_with_page(sample, 2))
        first_ms, first = timed(sample)
        body = first.json()
        last_path = _last_page_path(sample, body)
        last_ms, last = timed(last_path)
        pages = {}
        for name, path, once_ms, response in (("first_page", sample, first_ms, first),
                                              ("last_page", last_path, last_ms, last)):
            again = sorted(timed(path)[0] for _ in range(max(1, spec["repeats"])))
            pages[name] = {"path": path, "status": response.status_code, "bytes": len(response.content),
                           "once_ms": once_ms, "again_median_ms": statistics.median(again), "again_max_ms": again[-1]}
        last_body = last.json()
        pages["last_page"]["results"] = len(last_body.get("results", []))
        pages["last_page"]["has_next"] = bool(last_body.get("next"))
        page_count = int(dict(parse_qsl(urlsplit(last_path).query)).get("page", 1))
        picks = random.Random(0).sample(range(3, page_count), min(spec["random_pages"], max(0, page_count - 3)))
        random_ms, random_cpu_ms = [], []
        for page in picks:
            cpu_started = time.thread_time()
            random_ms.append(timed(_with_page(sample, page))[0])
            random_cpu_ms.append((time.thread_time() - cpu_started) * 1000)
    random_ms.sort()
    random_cpu_ms.sort()
    print(json.dumps({
        **pages, "catalogue_count": body.get("count"), "page_count": page_count, "warmup_ms": warmup_ms,
        "random_pages": {"count": len(random_ms), "median_ms": percentile(random_ms, 0.5),
                         "p99_ms": percentile(random_ms, 0.99), "max_ms": random_ms[-1] if random_ms else 0.0,
                         "cpu_median_ms": percentile(random_cpu_ms, 0.5),
                         "cpu_max_ms": random_cpu_ms[-1] if random_cpu_ms else 0.0},
        "rss_kb": proc_status_kb().get("VmRSS"),
    }))
    return 0


def _with_page(path: str, page: int) -> str:
    parts = urlsplit(path)
    query = dict(parse_qsl(parts.query))
    query["page"] = str(page)
    return parts.path + "?" + urlencode(query)


def _last_page_path(sample: str, body: Any) -> str:
    split = urlsplit
    parts = split(sample)
    query = dict(parse_qsl(parts.query))
    if isinstance(body, dict):
        for key in ("last", "last_page_url"):
            if isinstance(body.get(key), str):
                target = split(body[key])
                return target.path + (f"?{target.query}" if target.query else "")
        count = body.get("count")
        results = body.get("results")
        if isinstance(count, int) and isinstance(results, list) and results:
            per_page = int(query.get("page_size", len(results)))
            next_link = body.get("next") or ""
            next_query = dict(parse_qsl(split(next_link).query)) if next_link else {}
            if "offset" in next_query or "limit" in next_query:
                limit = int(next_query.get("limit", per_page))
                query.update(limit=str(limit), offset=str(max(0, (count - 1) // limit * limit)))
            else:
                query["page"] = str(max(1, -(-count // per_page)))
            return parts.path + "?" + urlencode(query)
    raise RuntimeError(f"cannot find the last page from the first page's answer: keys {list(body)[:10]}")


def _scale_inbox(options: Options, report: Report) -> None:
    """A member whose inbox holds ``inbox_messages`` messages, its snapshot paged to the end."""
    try:
        figures = _inbox_pages(options)
    except Exception as exc:
        report.skip("scale", "member-export inbox", f"{type(exc).__name__}: {exc}")
        traceback.print_exc()
        return
    report.scale["member_export_inbox"] = figures
    print(f"  inbox of {figures['messages']} messages: {figures['pages']} pages in {figures['seconds']:.2f} s",
          file=sys.stderr)


def _inbox_pages(options: Options) -> dict[str, Any]:
    """Made through member-export's Python control plane (create_member with ``sizes``, consent);
    paged through fake.client() by following each page's "next" link until the 404 that ends it."""
    fake = build_fake("member-export", options.settings)
    messages = options.inbox_messages
    member = fake.create_member(name="Bench Inbox", region="DE", sizes={"INBOX": messages}, build_times={"INBOX": 0})
    token = fake.consent(member["id"])["access_token"]
    headers = {"Authorization": f"Bearer {token}", fake.settings.version_header: fake.settings.accepted_version}
    path: str | None = "/rest/memberSnapshotData?q=criteria&domain=INBOX&start=0"
    page_ms: list[float] = []
    records = 0
    status = 0
    started = time.perf_counter()
    with fake.client() as client:
        while path is not None:
            t0 = time.perf_counter()
            response = client.get(path, headers=headers)
            elapsed = (time.perf_counter() - t0) * 1000
            status = response.status_code
            if status != 200:
                break
            page_ms.append(elapsed)
            body = response.json()
            records += sum(len(element.get("snapshotData", [])) for element in body.get("elements", []))
            links = body.get("paging", {}).get("links", [])
            path = next((link["href"][len(fake.prefix):] for link in links if link.get("rel") == "next"), None)
    seconds = time.perf_counter() - started
    if not page_ms:
        raise RuntimeError(f"the first inbox page answered {status}")
    return {
        "messages": messages, "records": records, "pages": len(page_ms), "page_size": fake.settings.page_size,
        "seconds": seconds, "ms_per_page": seconds * 1000 / len(page_ms), "max_page_ms": max(page_ms[1:] or page_ms),
        "first_page_ms": page_ms[0], "last_page_ms": page_ms[-1], "end_status": status,
    }


def _scale_journal(options: Options, report: Report) -> None:
    spec = {"requests": options.journal_requests, "size": options.journal_size}
    done = subprocess.run([sys.executable, "-m", BENCH_PACKAGE, "_journal", json.dumps(spec)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        report.skip("scale", "journal", done.stderr[-600:])
        return
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    growth_kb = (figures["rss_end_kb"] or 0) - (figures["rss_full_kb"] or 0)
    figures["rss_growth_after_full_mb"] = mb(growth_kb)
    figures["bounded"] = (figures["len"] == figures["size"] and figures["total"] == figures["requests"]
                          and growth_kb / 1024 < JOURNAL_GROWTH_LIMIT_MB)
    report.scale["journal"] = figures
    report.targets.append({"name": f"journal bounded under {figures['requests']:,} requests",
                           "value": figures["len"], "target": figures["size"], "unit": "entries", "op": "==",
                           "pass": figures["bounded"]})
    print(f"  journal: {figures['requests']:,} requests in {figures['seconds']:.1f} s, len {figures['len']}",
          file=sys.stderr)


def child_journal(spec: dict[str, Any]) -> int:
    """Drive the kernel's FakeApp directly with minimal ASGI calls; print the figures as JSON."""
    total, size = int(spec["requests"]), int(spec["size"])
    fake = build_fake(KERNEL, {}, journal_size=size)
    app = fake.app
    template = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
                "scheme": "http", "path": "/raw", "raw_path": b"/raw", "query_string": b"", "root_path": "",
                "headers": [(b"host", b"bench")], "server": ("bench", 80), "client": ("127.0.0.1", 1)}
    request_message = {"type": "http.request", "body": b"", "more_body": False}
    statuses: dict[int, int] = {}

    async def receive() -> dict[str, Any]:
        return request_message

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            statuses[message["status"]] = statuses.get(message["status"], 0) + 1

    full_at = min(total, max(2 * size, total // 10))
    samples: dict[str, Any] = {"start": proc_status_kb()}

    async def run() -> float:
        started = time.perf_counter()
        for i in range(1, total + 1):
            await app(dict(template), receive, send)
            if i == full_at:
                samples["full"] = proc_status_kb()
        return time.perf_counter() - started

    elapsed = asyncio.run(run())
    samples["end"] = proc_status_kb()
    journal = fake.journal
    last = list(journal)[-1] if len(journal) else {}
    print(json.dumps({
        "requests": total, "size": size, "seconds": elapsed, "us_per_request": elapsed / total * 1e6,
        "len": len(journal), "total": journal.total, "last_seq": last.get("seq"), "statuses": statuses,
        "rss_start_kb": samples["start"].get("VmRSS"), "rss_full_kb": samples.get("full", {}).get("VmRSS"),
        "rss_end_kb": samples["end"].get("VmRSS"), "full_at": full_at,
    }))
    return 0


