"""The declarative shapes a service's dashboard panels are made of: plain data the page renders.

A service's :meth:`~fakes.kernel.fake.Fake.dashboard_panels` returns a list of these dicts; the
generic page (static/app.js) knows how to draw each ``kind`` and nothing about any service:

* :func:`table` - columns and rows of cells;
* :func:`timeline` - lanes of spans between two instants, with the fake's "now" marked;
* :func:`facts` - label/value pairs.

A cell is a plain JSON value (text, number, boolean, null) or one of :func:`when` (an instant,
shown as ISO-8601), :func:`progress` (a bar) and :func:`image` (a picture the service itself
serves, by its path below the fake's base URL: the page loads it through ``GET /_fake/ui/image``,
which asks the service's route in process, so looking at it leaves no journal entry, and
prefixes, worlds and the gateway need nothing). :func:`collect` builds a service's panels one by
one, so that one that fails becomes an error note instead of breaking the page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from ..clock import iso_ms
from ..http import dumps

Panel = dict[str, Any]
T = TypeVar("T")
#: rows one table sends at most (the page is for looking, the control plane's JSON for everything)
MAX_ROWS = 200


def table(title: str, columns: Sequence[str], rows: Iterable[Sequence[Any]], *, note: str | None = None,
          max_rows: int = MAX_ROWS) -> Panel:
    """A titled table; rows past ``max_rows`` are counted in the note, not sent."""
    kept: list[list[Any]] = []
    total = 0
    for row in rows:
        total += 1
        if len(kept) < max_rows:
            kept.append(list(row))
    if total > len(kept):
        shown = f"showing {len(kept)} of {total} rows"
        note = f"{note} ({shown})" if note else shown
    return _panel("table", title, note, columns=list(columns), rows=kept)


def timeline(title: str, lanes: Iterable[dict[str, Any]], *, now_ms: int, note: str | None = None) -> Panel:
    """Lanes (see :func:`lane`) of spans over time, with ``now_ms`` (the fake's clock) marked."""
    return _panel("timeline", title, note, now_ms=now_ms, now=iso_ms(now_ms), lanes=list(lanes))


def lane(label: str, spans: Iterable[dict[str, Any]], *, group: str | None = None) -> dict[str, Any]:
    """One row of a timeline; lanes with the same ``group`` are drawn under one heading."""
    return {"label": label, "group": group, "spans": list(spans)}


def span(start_ms: int, end_ms: int, label: str = "") -> dict[str, Any]:
    """From ``start_ms`` to ``end_ms``: the page shades it done, running or waiting against now."""
    return {"start_ms": start_ms, "end_ms": max(start_ms, end_ms), "start": iso_ms(start_ms),
            "end": iso_ms(max(start_ms, end_ms)), "label": label}


def facts(title: str, pairs: Iterable[tuple[str, Any]], *, note: str | None = None) -> Panel:
    """Label/value pairs (a value is any cell)."""
    return _panel("facts", title, note, facts=[[label, value] for label, value in pairs])


def when(epoch_ms: int | None) -> dict[str, Any] | None:
    """An instant as a cell (None stays empty)."""
    if epoch_ms is None:
        return None
    return {"time": iso_ms(epoch_ms), "epoch_ms": epoch_ms}


def progress(fraction: float, text: str = "") -> dict[str, Any]:
    """A progress bar from 0 to 1, with a caption."""
    return {"progress": min(1.0, max(0.0, float(fraction))), "text": text}


def image(path: str, alt: str = "") -> dict[str, Any]:
    """A picture the fake serves at ``path`` below its base URL (``vod/v1/thumbnail.jpg``)."""
    return {"image": path.lstrip("/"), "alt": alt}


def error_panel(title: str, exc: BaseException) -> Panel:
    return _panel("error", title, None, message=f"this panel failed: {exc!r}")


def collect(source: T, *builders: Callable[[T], Panel | list[Panel]]) -> list[Panel]:
    """Each ``builder(source)``'s panel(s), in order; a builder that raises (or returns what JSON
    cannot carry) becomes an error note named after it, and the others are kept."""
    panels: list[Panel] = []
    for build in builders:
        try:
            made = build(source)
            batch = made if isinstance(made, list) else [made]
            dumps(batch)  # what cannot be sent fails here, not in the response
        except Exception as exc:  # a panel is a view: it must never take the page down
            panels.append(error_panel(getattr(build, "__name__", "panel").strip("_").replace("_", " "), exc))
            continue
        panels.extend(batch)
    return panels


def _panel(kind: str, title: str, note: str | None, **content: Any) -> Panel:
    return {"kind": kind, "title": title, "note": note, **content}
