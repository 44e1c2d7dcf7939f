"""``fakes replay``: a recorded session played against a fresh fake, exchange by exchange.

Each recorded request is sent, in order, to a fresh fake of the cassette's service (its clock
moved on by the gap recorded before it), and the fake's answer is compared with the recorded one
(:func:`.compare.compare`, the comparison of ``fakes conform``). What had to differ is carried
over, so the session still makes sense on the fake:

- **ids**: where a recorded answer and the fake's hold different ids at the same place (a created
  video's ``videoId``, a ``Location``), later requests get the fake's id in their path, query and
  JSON body;
- **credentials**: the cassette has none (``[redacted]``); a redacted header gets the fake's own
  (its full-access ``auth_headers()``, or a token the fake issued earlier in the session), a
  redacted field the secret of that name the fake issued, or its key.

A request whose body the cassette kept by hash only (binary, or too large) cannot be sent again:
it is reported ``not replayed``. :func:`write_pytest` turns a cassette into a test that replays it.
"""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from .. import registry
from ..kernel.clock import Clock
from ..kernel.fake import Fake
from ..kernel.redaction import REDACTED
from ..kernel.transport import SyncFakeTransport
from .cassette import Cassette, read_cassette
from .compare import Difference, compare
from .document import Document
from .observed import Observed, headers_of
from .record import HOP_BY_HOP
from .shape import string_form
from .walk import normalized

#: an id worth carrying over: letters and digits mixed, or a number, not a time or a URL
_ID_LIKE = re.compile(r"[A-Za-z0-9_\-]*\d[A-Za-z0-9_\-]*")
_ID_KEY = re.compile(r"(^id$|id$|Id$|_id$|uuid|token|key$|slug)", re.I)


@dataclass
class ReplayStep:
    seq: int
    operation: str
    target: str
    recorded: int
    replayed: int | None
    differences: list[Difference] = field(default_factory=list)
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "operation": self.operation, "target": self.target, "recorded": self.recorded,
                "replayed": self.replayed, "note": self.note,
                "differences": [{**d.to_dict(), "text": d.described("recorded")} for d in self.differences]}


@dataclass
class ReplayReport:
    cassette: str
    service: str
    steps: list[ReplayStep] = field(default_factory=list)

    @property
    def differences(self) -> list[tuple[int, str, Difference]]:
        return [(step.seq, step.operation, d) for step in self.steps for d in step.differences]

    @property
    def same(self) -> bool:
        return not self.differences

    def to_dict(self) -> dict[str, Any]:
        return {"cassette": self.cassette, "service": self.service, "exchanges": len(self.steps),
                "replayed": sum(step.replayed is not None for step in self.steps),
                "differences": len(self.differences), "steps": [step.to_dict() for step in self.steps]}

    def render(self) -> str:
        replayed = sum(step.replayed is not None for step in self.steps)
        lines = [f"replay {self.cassette} ({self.service}): {replayed} of {len(self.steps)} exchanges replayed, "
                 f"{len(self.differences)} differences"]
        for step in self.steps:
            if step.differences or step.note:
                note = f": {step.note}" if step.note else ""
                lines.append(f"  #{step.seq} {step.target} [{step.operation}]{note}")
                lines += [f"      {d.described('recorded')}" for d in step.differences]
        return "\n".join(lines)


class Carried:
    """What the session carries from the recorded service over to the fake: ids and secrets."""

    def __init__(self, fake: Fake) -> None:
        self.fake = fake
        self.ids: dict[str, Any] = {}  # recorded value (as text) -> the fake's value
        self.secrets: dict[str, str] = {}  # normalized field name -> the fake's last issued value
        self._auth: dict[str, str] | None = None

    @property
    def auth(self) -> dict[str, str]:
        if self._auth is None:
            self._auth = {name.lower(): value for name, value in self.fake.auth_headers().items()}
        return self._auth

    def fake_key(self) -> str | None:
        """The key inside the fake's own auth header (a Basic user, a Bearer token, a key header)."""
        for name, value in self.auth.items():
            scheme, _, rest = value.partition(" ")
            if name == "authorization" and scheme.lower() == "basic":
                return base64.b64decode(rest).decode().split(":")[0]
            if name == "authorization" and rest:
                return rest
        return next(iter(self.auth.values()), None)

    # -- learning ----------------------------------------------------------------------------------
    def learn(self, recorded: Any, replayed: Any, key: str = "") -> None:
        if isinstance(recorded, dict) and isinstance(replayed, dict):
            for name, value in replayed.items():
                if isinstance(value, str) and ("token" in name.lower() or "secret" in name.lower()):
                    self.secrets[normalized(name)] = value
                if name in recorded:
                    self.learn(recorded[name], value, name)
        elif isinstance(recorded, list) and isinstance(replayed, list):
            for old, new in zip(recorded, replayed, strict=False):
                self.learn(old, new, key)
        elif isinstance(recorded, str | int) and isinstance(replayed, str | int) and not isinstance(recorded, bool) \
                and recorded != replayed and REDACTED not in str(recorded) and self._id_like(key, recorded):
            self.ids[str(recorded)] = replayed

    @staticmethod
    def _id_like(key: str, value: Any) -> bool:
        text = str(value)
        if string_form(text) not in ("text", "uuid") or len(text) > 200:
            return False
        return bool(_ID_KEY.search(key)) or (len(text) >= 6 and bool(_ID_LIKE.fullmatch(text)))

    def learn_location(self, recorded: str | None, replayed: str | None) -> None:
        if not recorded or not replayed:
            return
        old, new = httpx.URL(recorded).path.split("/"), httpx.URL(replayed).path.split("/")
        if len(old) == len(new):
            for a, b in zip(old, new, strict=True):
                if a != b and self._id_like("id", a):
                    self.ids[a] = b

    # -- applying ----------------------------------------------------------------------------------
    def path(self, path: str) -> str:
        return "/".join(str(self.ids.get(segment, segment)) for segment in path.split("/"))

    def query(self, query: str) -> list[tuple[str, str | int | float | bool | None]]:
        pairs = httpx.QueryParams(query).multi_items()
        return [(name, self._field(name, str(self.ids.get(value, value)))) for name, value in pairs]

    def _field(self, name: str, value: Any) -> Any:
        if value != REDACTED:
            return value
        issued = self.secrets.get(normalized(name))
        if issued is not None:
            return issued
        return self.fake_key() if "key" in name.lower() else value

    def body(self, value: Any, name: str = "") -> Any:
        if isinstance(value, dict):
            return {key: self.body(item, key) for key, item in value.items()}
        if isinstance(value, list):
            return [self.body(item, name) for item in value]
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value) in self.ids:
            mapped = self.ids[str(value)]
            return mapped if isinstance(value, int) == isinstance(mapped, int) else str(mapped)
        return self._field(name, value)

    def headers(self, recorded: dict[str, str]) -> dict[str, str]:
        sent: dict[str, str] = {}
        for name, value in recorded.items():
            if name in HOP_BY_HOP:
                continue
            if REDACTED not in value:
                sent[name] = value
                continue
            scheme = value.split(" ")[0].lower() if " " in value else ""
            token = self.secrets.get("accesstoken") or self.secrets.get("token")
            if name == "authorization" and scheme == "bearer" and token:
                sent[name] = f"Bearer {token}"
            elif name in self.auth:
                sent[name] = self.auth[name]
            elif name == "authorization":
                sent.update(self.auth)  # the fake's own way in, for a header it does not know
        return sent


def replay_cassette(cassette: str | Path | Cassette, *, seed: int = 0, settings: dict[str, Any] | None = None,
                    fake: Fake | None = None, wrap: Callable[[Any], Any] | None = None) -> ReplayReport:
    """Replay ``cassette`` against ``fake`` (default: a fresh one of its service, manual clock);
    ``wrap`` wraps the fake's ASGI app (tests plant differences with it)."""
    recorded = cassette if isinstance(cassette, Cassette) else read_cassette(cassette)
    name = str(cassette) if not isinstance(cassette, Cassette) else "(in memory)"
    if fake is None:
        fake = registry.fake_class(recorded.service)(seed=seed, clock=Clock("manual"), **(settings or {}))
    app = wrap(fake.app) if wrap is not None else fake.app
    document = Document(fake.openapi(), "the fake's own")
    carried = Carried(fake)
    report = ReplayReport(name, recorded.service)
    seen: list[Observed] = []
    client = httpx.Client(base_url=fake.base_url, transport=SyncFakeTransport(app))
    last = 0.0
    with client:
        for seq, exchange in enumerate(recorded.exchanges, start=1):
            operation = document.operation_key(exchange.method, exchange.path)
            step = ReplayStep(seq, operation, exchange.target, exchange.status, None)
            report.steps.append(step)
            if exchange.at > last:
                fake.advance(exchange.at - last)
                last = exchange.at
            if exchange.request_by_hash:
                step.note = "not replayed: the cassette kept its request body by hash only (binary or large)"
                continue
            answer = client.request(exchange.method, carried.path(exchange.path),
                                    params=carried.query(exchange.query) if exchange.query else None,
                                    headers=carried.headers(exchange.request_headers),
                                    content=_request_body(exchange, carried))
            replayed = Observed(exchange.method, exchange.path, exchange.query, status=answer.status_code,
                                response_headers=headers_of(answer.headers.multi_items()),
                                response_body=answer.content, source="replay", operation=operation)
            seen.append(replayed)
            step.replayed = answer.status_code
            step.differences = compare(exchange, replayed, operation=operation, hints=document)
            carried.learn(exchange.json(), replayed.json())
            carried.learn_location(exchange.response_headers.get("location"), replayed.response_headers.get("location"))
    return report


def _request_body(exchange: Observed, carried: Carried) -> bytes:
    body = exchange.request_body
    if not body:
        return body
    media = exchange.request_headers.get("content-type", "")
    if "json" in media:
        try:
            return json.dumps(carried.body(json.loads(body))).encode()
        except ValueError:
            return body
    if "x-www-form-urlencoded" in media:
        return str(httpx.QueryParams(carried.query(body.decode()))).encode()
    return body


def write_pytest(cassette_path: str | Path, test_path: str | Path, *, seed: int = 0,
                 settings: dict[str, Any] | None = None) -> Path:
    """Write a pytest module that replays ``cassette_path`` and fails on any difference."""
    cassette = read_cassette(cassette_path)  # refuse to write a test of a file that is no cassette
    test = Path(test_path)
    relative = os.path.relpath(Path(cassette_path).resolve(), test.resolve().parent)
    stem = re.sub(r"\W+", "_", Path(cassette_path).stem).strip("_") or "session"
    test.write_text(
        f'"""Replays a recorded {cassette.service} session against a fresh fake '
        f"(written by `fakes replay --pytest`).\n\n"
        f"Recorded from {cassette.upstream or 'an upstream'} on {cassette.recorded_at or 'an unknown date'}; "
        f"it fails when the fake no longer answers as the service did.\n"
        f'"""\n\nfrom pathlib import Path\n\nfrom fakes.conform.replay import replay_cassette\n\n'
        f"CASSETTE = Path(__file__).parent / {relative!r}\n\n\n"
        f"def test_recorded_{stem}_replays_the_same() -> None:\n"
        f"    report = replay_cassette(CASSETTE, seed={seed!r}, settings={settings or {}!r})\n"
        f"    assert report.same, report.render()\n", encoding="utf-8")
    return test
