"""The two sides of a conformance run: the real service (a base URL, the user's credentials, a call
budget, read-only unless told) and a fresh fake of the same service in process.

Each side is an httpx client whose transport observes every exchange (:class:`.observed.Observed`,
tagged with what the run was doing: ``walk`` or a scenario's name). The real side's guard refuses
a call past the budget (keeping one call back for deleting each resource the run created) and any
write unless writes are allowed; its waits sleep (bounded by ``max_wait``), or, against a fake
standing in for the real service, move that fake's clock.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from ..kernel.fake import Fake
from ..kernel.transport import SyncFakeTransport
from .document import READ_METHODS, Document, Operation
from .observed import Observed, ObservingTransport, RefusedCall

#: the run's tag on every request to the real service (servers log the User-Agent)
USER_AGENT = "contract-fakes-conform"


class Unreachable(Exception):
    """The real service answered none of the run's requests (one line for the user)."""


@dataclass
class Budget:
    """Calls to the real service: at most ``max_calls``, one kept back per resource to delete."""

    max_calls: int
    calls: int = 0
    reserved: int = 0
    cleaning: bool = False

    def take(self, method: str) -> None:
        # a write needs room for itself and for deleting what it may create
        needed = 1 if method in READ_METHODS or self.cleaning else 2
        free = self.max_calls - self.calls - (0 if self.cleaning else self.reserved)
        if free < needed:
            raise RefusedCall(f"the call budget is spent ({self.calls} of --max-calls {self.max_calls}"
                              + (f", {self.reserved} kept for clean-up" if self.reserved else "") + ")")
        self.calls += 1


@dataclass
class Side:
    """One side: its client, what it saw, and what the run is doing now (``source``)."""

    name: str  # "real" or "fake"
    base_url: str
    client: httpx.Client = field(init=False)
    exchanges: list[Observed] = field(default_factory=list)
    source: str = "walk"
    #: one per resource the run created: its (operation, path) to delete afterwards
    created: list[tuple[Operation, str]] = field(default_factory=list)
    deleted: set[str] = field(default_factory=set)

    def _seen(self, observed: Observed, request: httpx.Request) -> None:
        observed.source = self.source
        self.exchanges.append(observed)

    def exchanges_of(self, source: str) -> list[Observed]:
        return [e for e in self.exchanges if e.source == source and not e.path.startswith("/_fake/")]

    def send(self, method: str, path: str, *, params: dict[str, Any] | None = None,
             headers: dict[str, str] | None = None, json: Any = None) -> Observed | str:
        """One request; the exchange, or why it was not sent (a refusal, a transport error)."""
        before = len(self.exchanges)
        try:
            self.client.request(method, path, params=params, headers=headers, json=json)
        except RefusedCall as exc:
            return str(exc)
        except httpx.HTTPError as exc:
            return f"{type(exc).__name__}: {exc}"
        return self.exchanges[before] if len(self.exchanges) > before else "no answer"

    def auth_headers(self, document: Document, operation: Operation) -> dict[str, str]:
        """The headers that authenticate ``operation`` on this side."""
        return {}

    def sleep(self, seconds: float) -> None:
        """A wait of the flow."""

    def note_deleted(self, path: str) -> None:
        """A resource the run created (or not) was deleted: no clean-up left for it."""
        path = path.rstrip("/")
        if path not in self.deleted and any(created.rstrip("/") == path for _, created in self.created):
            self.release()
        self.deleted.add(path)

    def release(self) -> None:
        """One clean-up call kept back is no longer needed."""

    def cleanup(self, document: Document) -> list[tuple[str, Observed | str]]:
        """Delete what the run created and did not delete itself: (path, exchange or why not)."""
        done: list[tuple[str, Observed | str]] = []
        self.source = "clean-up"
        for operation, path in self.created:
            if path.rstrip("/") in self.deleted:
                continue
            done.append((path, self.send("DELETE", path, headers=self.auth_headers(document, operation))))
            self.note_deleted(path)
        return done

    def close(self) -> None:
        self.client.close()


class RealSide(Side):
    def __init__(self, base_url: str, credentials: dict[str, str], *, budget: Budget, allow_writes: bool,
                 max_wait: float, stand_in: bool = False, control_token: str | None = None,
                 timeout: float = 30.0, sleep: Callable[[float], None] | None = None,
                 transport: httpx.BaseTransport | None = None, run_id: str = "") -> None:
        super().__init__("real", base_url.rstrip("/"))
        self.credentials = credentials
        self.budget = budget
        self.allow_writes = allow_writes
        self.max_wait = max_wait
        self.waited = 0.0
        self.transport_errors: list[str] = []
        #: the fake's own document's security schemes, for a walked document without any
        self.fallback_schemes: dict[str, dict[str, Any]] = {}
        self.stand_in = stand_in
        self.control_token = control_token
        self._sleep = sleep or time.sleep
        inner = transport or httpx.HTTPTransport()
        self.client = httpx.Client(
            base_url=self.base_url, timeout=timeout,
            transport=ObservingTransport(inner, self.base_url, self._seen, guard=self._guard,
                                         failed=self._failed),
            headers={"User-Agent": f"{USER_AGENT} (run {run_id})" if run_id else USER_AGENT})

    def _failed(self, error: httpx.TransportError) -> None:
        self.transport_errors.append(f"{type(error).__name__}: {error}")
        if not self.exchanges:  # not one answer yet: nothing to compare, say so at once
            raise Unreachable(f"cannot reach --real-url {self.base_url}: {self.transport_errors[0]}")

    def release(self) -> None:
        self.budget.reserved = max(0, self.budget.reserved - 1)

    def cleanup(self, document: Document) -> list[tuple[str, Observed | str]]:
        self.budget.cleaning = True
        try:
            return super().cleanup(document)
        finally:
            self.budget.cleaning = False

    def _guard(self, request: httpx.Request) -> None:
        if request.method not in READ_METHODS and not self.allow_writes and not self.budget.cleaning:
            raise RefusedCall(f"writes need --allow-writes ({request.method} {request.url.path})")
        self.budget.take(request.method)

    def sleep(self, seconds: float) -> None:
        """A wait a scenario documents: real time, within ``max_wait`` in all; a stand-in's clock."""
        if self.stand_in:
            headers = {"Authorization": f"Bearer {self.control_token}"} if self.control_token else {}
            httpx.post(f"{self.base_url}/_fake/clock", json={"advance_seconds": seconds}, headers=headers,
                       timeout=30.0).raise_for_status()
            return
        if self.waited + seconds > self.max_wait:
            raise RefusedCall(f"the flow waits {seconds:g} s here on the real service; --max-wait "
                              f"{self.max_wait:g} leaves {max(0.0, self.max_wait - self.waited):g} s")
        self.waited += seconds
        self._sleep(seconds)

    def auth_headers(self, document: Document, operation: Operation) -> dict[str, str]:
        """The user's credentials, as the operation's security schemes ask for them (a document
        that declares none, like a framework-generated one: as the fake's own document does)."""
        schemes = document.security_schemes()
        names = document.security_of(operation)
        if not schemes:
            schemes, names = self.fallback_schemes, list(self.fallback_schemes)
        for name in names:
            scheme = schemes.get(name)
            if scheme is not None:
                found = scheme_headers(name, scheme, self.credentials)
                if found:
                    return found
        return {}


def scheme_headers(name: str, scheme: dict[str, Any], credentials: dict[str, str]) -> dict[str, str]:
    """Headers for one security scheme from the user's credentials (by the scheme's name first,
    else the usual names: ``api_key``, ``access_token``/``token``, ``username``+``password``)."""
    kind = str(scheme.get("type", "")).lower()
    given = credentials.get(name)
    if kind == "apikey" and scheme.get("in") == "header":
        value = given or credentials.get("api_key")
        return {str(scheme.get("name")): value} if value else {}
    if kind == "http" and str(scheme.get("scheme", "")).lower() == "bearer":
        value = given or credentials.get("access_token") or credentials.get("token") or credentials.get("api_key")
        return {"Authorization": f"Bearer {value}"} if value else {}
    if kind == "http" and str(scheme.get("scheme", "")).lower() == "basic":
        if given:
            pair = given
        elif "username" in credentials:
            pair = f"{credentials['username']}:{credentials.get('password', '')}"
        elif "api_key" in credentials:
            pair = f"{credentials['api_key']}:"  # the API key as the user name (api.video)
        else:
            return {}
        return {"Authorization": "Basic " + base64.b64encode(pair.encode()).decode()}
    return {}


class FakeSide(Side):
    def __init__(self, fake: Fake) -> None:
        super().__init__("fake", fake.base_url)
        self.fake = fake
        self.client = httpx.Client(
            base_url=fake.base_url, transport=ObservingTransport(SyncFakeTransport(fake.app), fake.base_url,
                                                                 self._seen),
            headers={"User-Agent": USER_AGENT})
        self._auth: dict[str, str] | None = None

    def sleep(self, seconds: float) -> None:
        self.fake.advance(seconds)

    def auth_headers(self, document: Document, operation: Operation) -> dict[str, str]:
        if self._auth is None:
            self._auth = self.fake.auth_headers()
        return dict(self._auth)
