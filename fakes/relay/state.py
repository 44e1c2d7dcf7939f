"""The relay model's exported state, and its import: every field read through the kernel's
:class:`~fakes.kernel.statecheck.StateReader` (type, range, references), so a mistyped or
out-of-range field is a 400 naming it, never a 5xx or a dropped connection later.

Exported is everything that changes an answer: teams (balances, keys, ledgers), call records,
statistics, stored idempotent answers, saturation (switch, thresholds and the current second's
count), each simulated provider's per-minute window, the clients' pending ``Retry-After`` and
recently billed keyless POSTs (for the client rules), user providers and entries, and upstream
registrations that can be written down (canned tables and other fakes; Python callables and ASGI
apps cannot). Calls in flight (holds, unfinished idempotent calls) are not: they do not survive.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from fakes.kernel.clock import MAX_EPOCH_MS
from fakes.kernel.errors import ControlError
from fakes.kernel.statecheck import StateReader, check_integer, check_text, refuse

from . import asyncjobs, bodies
from .accounts import ladder
from .accounts import state as accounts_state
from .asyncjobs import JobsModel
from .billing import IdempotencyStore
from .catalogue import Entry, Provider
from .saturation import Saturation
from .teams import Team
from .upstreams import CannedUpstream, FakeUpstream, Handler, SimulatedUpstream, validate_canned

#: call ids keep their form (10 hex digits of the number) up to here; state may not name more
MAX_CALL_SEQ = 16**10 - 2**20
TOP_FIELDS = ("teams", "calls", "stats", "idempotency", "saturation", "providers", "entries", "upstreams",
              "call_seq", "team_seq", "rate_windows", "not_before_ms", "billed_posts", "accounts", "tasks")


class ExportedModel(JobsModel, accounts_state.AccountsHolder, Protocol):
    """The model as its state sees it: everything that changes an answer, and the control-plane
    steps an import replays (providers, entries, upstreams)."""

    stats: dict[str, list[int]]
    idempotency: IdempotencyStore
    saturation: Saturation
    simulated: SimulatedUpstream
    provider_specs: dict[str, dict[str, Any]]
    entry_specs: dict[str, dict[str, Any]]
    upstream_specs: dict[str, dict[str, Any]]
    call_seq: int
    team_seq: int
    not_before_ms: dict[str, int]
    billed_posts: dict[str, dict[str, int]]
    world_of: Callable[[], str | None]

    def _catalogue_changed(self) -> None: ...

    def add_provider(self, body: dict[str, Any]) -> Provider: ...

    def add_entry(self, body: dict[str, Any]) -> Entry: ...

    def register_upstream(self, provider: str, handler: Handler, spec: dict[str, Any] | None = None) -> None: ...


def export(model: ExportedModel) -> dict[str, Any]:
    return {
        "teams": [t.to_state() for t in model.teams.values()],
        "calls": list(model.calls.values()),
        "stats": {k: list(v) for k, v in model.stats.items()},
        "idempotency": model.idempotency.to_state(),
        "saturation": model.saturation.to_state(),
        "providers": list(model.provider_specs.values()),
        "entries": list(model.entry_specs.values()),
        "upstreams": dict(model.upstream_specs),
        "call_seq": model.call_seq,
        "team_seq": model.team_seq,
        "rate_windows": model.simulated.windows_state(),
        "not_before_ms": dict(model.not_before_ms),
        "billed_posts": {team: dict(seen) for team, seen in model.billed_posts.items()},
        "tasks": asyncjobs.to_state(model),
        "accounts": accounts_state.export(model),
    }


def load(model: ExportedModel, state: Any) -> None:
    """Fill a fresh model from ``state`` (the kernel discards the model if this raises)."""
    read = StateReader(state, "model").only(TOP_FIELDS)
    model._catalogue_changed()
    for index, row in enumerate(read.objects("providers") if read.has("providers") else []):
        _control_step(f"model.providers[{index}]", lambda row=row: model.add_provider(_body(row, bodies.PROVIDER)))
    for index, row in enumerate(read.objects("entries") if read.has("entries") else []):
        _control_step(f"model.entries[{index}]", lambda row=row: model.add_entry(_body(row, bodies.ENTRY)))
    for team_read in read.objects("teams") if read.has("teams") else []:
        team = Team.from_state(team_read)
        if team.team_id in model.teams:
            refuse(team_read.where("team_id"), "repeats another team's id")
        team.org = accounts_state.read_org(team_read.object("org"))
        model.teams[team.team_id] = team
    if read.has("accounts"):
        accounts_state.load(model, read.object("accounts"))
    elif model.teams:
        refuse("model.accounts", "is missing (the teams' members and their tokens are there)")
    for team in model.teams.values():
        ladder.refresh_ladder(model, team)
    for record in read.objects("calls", max_items=2 * model.calls.limit) if read.has("calls") else []:
        model.calls.load(record)
    model.stats = _stats(read.mapping("stats") if read.has("stats") else {})
    for row in read.objects("idempotency") if read.has("idempotency") else []:
        model.idempotency.load(row, model.teams)
    if read.has("saturation"):
        model.saturation.load(read.object("saturation"))
    for provider, spec in (read.mapping("upstreams") if read.has("upstreams") else {}).items():
        _upstream(model, provider, spec, f"model.upstreams.{provider}")
    for row in read.objects("tasks") if read.has("tasks") else []:
        asyncjobs.load(model, row)
    model.call_seq = read.integer("call_seq", minimum=0, maximum=MAX_CALL_SEQ) if read.has("call_seq") else 0
    if model.calls.newest > model.call_seq:
        refuse("model.call_seq", f"is {model.call_seq}, but a call record's id names call {model.calls.newest}")
    model.team_seq = (read.integer("team_seq", minimum=0, maximum=MAX_CALL_SEQ) if read.has("team_seq")
                      else len(model.teams))
    for index, row in enumerate(read.array("rate_windows", max_items=100_000) if read.has("rate_windows") else []):
        model.simulated.load_window(row, f"model.rate_windows[{index}]")
    for team_id, at in (read.mapping("not_before_ms") if read.has("not_before_ms") else {}).items():
        _known_team(model, team_id, "model.not_before_ms")
        model.not_before_ms[team_id] = check_integer(at, f"model.not_before_ms.{team_id}", minimum=0,
                                                     maximum=MAX_EPOCH_MS + 10**12)
    for team_id, seen in (read.mapping("billed_posts") if read.has("billed_posts") else {}).items():
        _known_team(model, team_id, "model.billed_posts")
        where = f"model.billed_posts.{team_id}"
        if not isinstance(seen, dict) or len(seen) > 1001:
            refuse(where, "must be an object of at most 1001 request fingerprints")
        model.billed_posts[team_id] = {check_text(fp, where, pattern=r"[0-9a-f]{64}"):
                                       check_integer(at, f"{where}.{fp}", minimum=0, maximum=MAX_EPOCH_MS)
                                       for fp, at in seen.items()}


def _known_team(model: ExportedModel, team_id: str, where: str) -> None:
    if team_id not in model.teams:
        refuse(f"{where}.{team_id}", "names no team of this state")


def _body(read: StateReader, schema: bodies.Schema) -> dict[str, Any]:
    body = read.check_json()
    bodies.check(body, schema)
    return body


def _control_step(where: str, step: Any) -> None:
    """Run a control-plane step on imported data, turning its refusal into a state refusal."""
    try:
        step()
    except ControlError as exc:
        field = exc.extra.get("field")
        refuse(f"{where}.{field}" if field else where, exc.message)


def _stats(raw: dict[str, Any]) -> dict[str, list[int]]:
    stats = {}
    for entry_id, pair in raw.items():
        where = f"model.stats.{entry_id}"
        if not isinstance(pair, list) or len(pair) != 2:
            refuse(where, "must be [calls answered, hits]")
        calls = check_integer(pair[0], where, minimum=0, maximum=2**62)
        hits = check_integer(pair[1], where, minimum=0, maximum=calls)
        stats[check_text(entry_id, "model.stats", min_length=1, max_length=500)] = [calls, hits]
    return stats


def _upstream(model: ExportedModel, provider: str, spec: Any, where: str) -> None:
    if model.provider(provider) is None:
        refuse(where, "names no provider of the catalogue")
    if not isinstance(spec, dict) or len(spec) != 1 or not ({"responses", "fake"} & set(spec)):
        refuse(where, 'must be {"responses": [...]} or {"fake": "<service>"}')
    if "fake" in spec:
        name = check_text(spec["fake"], f"{where}.fake", min_length=1, max_length=100)
        model.register_upstream(provider, FakeUpstream(name, model.world_of), {"fake": name})
        return
    try:
        rows = validate_canned(spec["responses"])
        bodies.check({"provider": provider, "responses": rows}, bodies.UPSTREAM)
    except (ValueError, ControlError) as exc:
        refuse(f"{where}.responses", str(exc) if isinstance(exc, ValueError) else exc.message)
    model.register_upstream(provider, CannedUpstream(rows), {"responses": rows})
