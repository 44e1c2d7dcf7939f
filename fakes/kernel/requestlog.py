"""One line per request a fake answers (``fakes serve --log-requests``, or ``--log-level debug``).

Off unless switched on for the process (:func:`enable`); then every fake and world of the process
writes, for each request its journal records (the service's API; the control plane is not
journaled and not logged), one line to the ``fakes.requests`` logger::

    10:15:02.331 filings - GET /filings/?page=2 200 1.32ms
    10:15:02.340 member-export job-7 POST /rest/memberAuthorizations 201 0.84ms

wall-clock time (UTC), service, world (``-``: the default world), method, path and query
(credentials redacted as the journal shows them), status, and the milliseconds from the
request's arrival at the fake to its journal entry.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from typing import IO, Protocol

from .journal import Journal


class LoggedFake(Protocol):
    """What a request line reads of the fake (or world) that answered: its service's name, its
    world's id, and its journal's redactor (the line shows the query as the journal does)."""

    @property
    def name(self) -> str: ...

    @property
    def world_id(self) -> str | None: ...

    @property
    def journal(self) -> Journal: ...


LOGGER = logging.getLogger("fakes.requests")
#: what the app calls after each journaled request, or None (the default: no cost but one check)
active: Callable[[LoggedFake, str, str, str, int, float], None] | None = None


def enable(stream: IO[str] | None = None) -> None:
    """Log every request of every fake in this process to ``stream`` (default: standard output)."""
    global active
    if not any(getattr(h, "_fakes_requests", False) for h in LOGGER.handlers):
        handler = logging.StreamHandler(stream or sys.stdout)
        handler.setFormatter(logging.Formatter("%(message)s"))
        handler._fakes_requests = True  # type: ignore[attr-defined]
        LOGGER.addHandler(handler)
    LOGGER.setLevel(logging.INFO)
    LOGGER.propagate = False  # its own line format, not the log's
    active = log_request


def disable() -> None:
    global active
    active = None
    for handler in [h for h in LOGGER.handlers if getattr(h, "_fakes_requests", False)]:
        LOGGER.removeHandler(handler)


def log_request(fake: LoggedFake, method: str, path: str, query: str, status: int, started: float) -> None:
    LOGGER.info(request_line(fake, method, path, query, status, (time.perf_counter() - started) * 1000))


def request_line(fake: LoggedFake, method: str, path: str, query: str, status: int, milliseconds: float) -> str:
    now = time.time()
    clock = time.strftime("%H:%M:%S", time.gmtime(now)) + f".{int(now * 1000) % 1000:03d}"
    redactor = fake.journal.redactor
    if query and redactor is not None:
        query = redactor.query(query)
    target = f"{path}?{query}" if query else path
    return f"{clock} {fake.name} {fake.world_id or '-'} {method} {target} {status} {milliseconds:.2f}ms"
