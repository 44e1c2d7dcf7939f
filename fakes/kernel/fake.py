"""The Fake base class: settings, seed, clock, state, app, control plane, and the harness."""

from __future__ import annotations

import contextlib
import json
import os
import ssl
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import httpx
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route, Router

from .access import ControlAccess
from .app import FakeApp
from .benchops import BenchOperation, probed_mix
from .clock import Clock, ClockError
from .control import control_routes
from .dashboard import DASHBOARD_ROUTES, dashboard_paths
from .dashboard.auth import DashboardSessions
from .errors import ControlError, ServiceError
from .faults import FaultSet
from .http import check_json_value, dumps, json_response
from .journal import DEFAULT_JOURNAL_SIZE, Journal, journal_settings
from .limits import DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_CONTROL_BODY_BYTES, DEFAULT_MAX_STATE_BYTES, resolve_cap
from .openapi import control_paths, merge_control_plane, required_bodies, secure_control_plane, template_key
from .redaction import redactor
from .routing import ServiceRouter
from .settings import FakeSettings
from .statecheck import StateError, check_integer, echo
from .stubcontrol import STUB_ROUTES
from .stubs import StubRule, StubSet, stub_spec
from .transport import AsyncFakeTransport, SyncFakeTransport
from .verdicts import SILENCE_ENV, ClientRule, Verdicts, silenced_ids, split_patterns
from .worlds import DEFAULT_MAX_WORLDS, Worlds, world_control_routes, world_openapi_paths
from .worldshare import building_world, shared_router, template_of_new_fake, under_control_prefix

if TYPE_CHECKING:
    from .protocol import ReadTimeouts

STATE_FORMAT = 1
#: what a state holds (GET /_fake/state); any other top-level key is refused, not ignored
STATE_KEYS = ("service", "format", "seed", "settings", "clock", "faults", "stubs", "epoch", "model")


class Model(Protocol):
    """What the kernel needs of a service's model: a JSON-able state and its reload.

    ``load_state`` is called on a fresh model (from ``create_model``) with the ``model`` part of an
    imported state, which may be anything JSON. It must validate all of it before the kernel swaps
    the model in - types, ranges, references between records, and anything a later request would
    trust - and refuse with :class:`~fakes.kernel.statecheck.StateError` naming the field
    (``model.items[3].owner``); read the state through :class:`~fakes.kernel.statecheck.StateReader`
    to get that for each field in one call. Whatever it accepts, every public operation must still
    answer without a 5xx and export identically (the kernel harness, tests/hardening/, checks
    both for every registered service). Identifiers clients keep (tokens, keys) should include
    ``fake.epoch`` (bumped by every reset, 0 in a fresh fake) so that a reset never re-issues one.
    """

    def to_state(self) -> dict[str, Any]: ...

    def load_state(self, state: dict[str, Any]) -> None: ...


def make_clock(clock: Clock | str | None, *, default: str = "manual", start_ms: int | None = None) -> Clock:
    """The Clock handed in (shared, with its own start), or a new one of the spec starting at
    ``start_ms`` (default: 2026-01-05T09:00Z for manual, the wall time for real and scaled)."""
    if isinstance(clock, Clock):
        return clock
    return Clock(clock or default, start_ms=start_ms)


class Fake:
    """Base of every service fake. Subclasses declare the class attributes and the hooks."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    default_port: ClassVar[int] = 0
    settings_class: ClassVar[type[FakeSettings]] = FakeSettings
    #: the documented client rules this service checks (see :mod:`fakes.kernel.verdicts`)
    client_rules: ClassVar[tuple[ClientRule, ...]] = ()
    #: the body cap of this service's routes unless ``max_body_bytes`` (or FAKES_MAX_BODY_BYTES) says
    #: otherwise; a route with a documented limit of its own declares it with ``limits.limit_body``
    default_max_body_bytes: ClassVar[int] = DEFAULT_MAX_BODY_BYTES
    #: request and answer headers the journal shows redacted, beyond the kernel's (Authorization,
    #: cookies, any name with token, secret, password, api-key or credential in it)
    secret_headers: ClassVar[tuple[str, ...]] = ()
    #: JSON keys, form fields and query parameters the journal shows redacted, beyond the kernel's
    #: (password, client_secret, access_token, refresh_token, id_token, api_key, apiKey, secret)
    secret_fields: ClassVar[tuple[str, ...]] = ()
    #: form fields and query parameters only (a name harmless as a JSON key, e.g. OAuth's ``code``)
    secret_form_fields: ClassVar[tuple[str, ...]] = ()
    #: the fields of the exported model an imported state must have (the others may be left out: a
    #: state from an older version); the state schema of ``PUT /_fake/state`` requires them
    state_required_fields: ClassVar[tuple[str, ...]] = ()
    #: sample requests after which a request costs what it will (what it keeps per request is full)
    bench_steady_requests: ClassVar[int] = 0
    init_args: tuple[Any, ...]
    init_kwargs: dict[str, Any]

    def __new__(cls, *args: Any, **kwargs: Any) -> Fake:
        # Keep the exact constructor arguments: a world is the same class built from them again.
        fake: Fake = super().__new__(cls)
        fake.init_args, fake.init_kwargs = args, kwargs  # a dict of its own already (**kwargs)
        return fake

    def __init__(
        self,
        *,
        seed: int = 0,
        clock: Clock | str | None = None,
        prefix: str = "",
        control_token: str | None = None,
        journal_size: int = DEFAULT_JOURNAL_SIZE,
        overrides: Mapping[str, str] | None = None,
        silence_rules: Iterable[str] | str | None = None,
        max_worlds: int | None = DEFAULT_MAX_WORLDS,
        world_idle_expiry: float | None = None,
        max_fault_latency_ms: float | None = None,
        start_ms: int | None = None,
        max_body_bytes: int | None = None,
        max_control_body_bytes: int | None = None,
        max_state_bytes: int | None = None,
        journal_body_bytes: int | None = None,
        journal_bytes: int | None = None,
        journal_keep_secrets: bool | None = None,
        allowed_hosts: Iterable[str] | str | None = None,
        allowed_origins: Iterable[str] | str | None = None,
        **settings: Any,
    ) -> None:
        self.seed = int(seed)
        #: the parent when this fake is one of its worlds: what cannot differ is taken from it
        template: Fake | None = template_of_new_fake(self)
        self._template = template
        # A clock handed in is shared with other fakes: resetting this fake must not rewind it.
        self._owns_clock = not isinstance(clock, Clock)
        self.clock = make_clock(clock, start_ms=start_ms)  # start_ms: of a clock of its own only
        self.prefix = "/" + prefix.strip("/") if prefix.strip("/") else ""
        self.control_token = control_token or None
        # the control plane's Host, Origin and body-type checks (fakes/kernel/access.py)
        self.access: ControlAccess = template.access if template else ControlAccess(
            allowed_hosts, allowed_origins, names=(self.name,))
        self.settings: Any = template.settings if template else self.settings_class.resolve(
            self.name, kwargs=settings, cli=overrides)
        # headers and bodies kept per entry and per journal, credentials shown or not (docs/testing.md)
        body_bytes, total_bytes, keep_secrets = journal_settings(journal_body_bytes, journal_bytes,
                                                                 journal_keep_secrets)
        self.journal: Journal = Journal(journal_size, body_bytes=body_bytes, total_bytes=total_bytes,
                                        redactor=template.journal.redactor if template else None if keep_secrets
                                        else redactor(self.secret_headers, self.secret_fields,
                                                      self.secret_form_fields))
        # longest latency a fault may add (None: FAKES_MAX_FAULT_LATENCY_MS or 60 s)
        self.max_fault_latency_ms = max_fault_latency_ms
        # body caps (fakes/kernel/limits.py): service routes, control-plane bodies, state imports
        self.max_body_bytes = resolve_cap(max_body_bytes, "max_body_bytes", self.default_max_body_bytes)
        self.max_control_body_bytes = resolve_cap(max_control_body_bytes, "max_control_body_bytes",
                                                  DEFAULT_MAX_CONTROL_BODY_BYTES)
        self.max_state_bytes = resolve_cap(max_state_bytes, "max_state_bytes", DEFAULT_MAX_STATE_BYTES)
        self.faults = self.new_faults()
        self.stubs = self.new_stubs()
        # 0 in a fresh fake, a new number after every reset: a model puts it into what clients keep
        # (tokens, keys) so that a reset never re-issues one, while two fresh fakes stay identical
        self.epoch = 0
        self._epoch_high = 0
        # rule ids (or globs) whose verdicts are not recorded; None: FAKES_SILENCE_RULES (comma-separated)
        silenced = template.verdict_log.silenced if template else silenced_ids(
            self.name, self.client_rules, split_patterns(os.environ.get(SILENCE_ENV) if silence_rules is None
                                                         else silence_rules))
        self.verdict_log: Verdicts = Verdicts(self.client_rules, silenced, redactor=self.journal.redactor)
        self.model: Any = self.create_model()
        self._app: FakeApp | None = None
        self._openapi: dict[str, Any] | None = None
        #: the worlds served besides this one (see :mod:`fakes.kernel.worlds`); None in a world
        self.worlds: Worlds[Fake] | None = None if template else Worlds(self, max_worlds=max_worlds,
                                                                         idle_expiry=world_idle_expiry)
        self.world_id: str | None = None  # set in a world: its id
        #: the dashboard's signed-in browsers (shared with the worlds; fakes/kernel/dashboard/auth.py)
        self.dashboard_sessions: DashboardSessions = template.dashboard_sessions if template else DashboardSessions()

    # -- hooks for services ------------------------------------------------------------------
    def create_model(self) -> Model:
        raise NotImplementedError

    def routes(self) -> list[BaseRoute]:
        raise NotImplementedError

    def control_routes(self) -> list[BaseRoute]:
        return []

    def error_body(self, err: ServiceError) -> dict[str, Any]:
        return {"error": err.code or "error", "message": err.message, **err.extra}

    def openapi_document(self) -> dict[str, Any]:
        return {"openapi": "3.0.3", "info": {"title": self.title or self.name, "version": "fake"}, "paths": {}}

    def demo_credentials(self) -> dict[str, str]:
        """Ready-made credentials printed by `fakes serve` (may create state, e.g. a member)."""
        return {}

    def auth_headers(self) -> dict[str, str]:
        """Headers of a client with full access (creating what they need); used by the contract
        tests (schemathesis) and the benchmark."""
        return {}

    @classmethod
    def settings_for_tests(cls) -> dict[str, Any]:
        """Settings the generic suites (contract tests, scenario tests) use for this service: the
        same contract on less data, e.g. a small catalogue. Scenarios run with these and with the
        defaults (what `fakes serve` runs)."""
        return {}

    def deliberate_5xx(self, status: int, headers: Mapping[str, str], body: bytes) -> bool:
        """Whether a 5xx answer of the service API is one its documentation promises on purpose
        (a saturation switch the user turned on, an upstream's own error passed on verbatim), not a
        failure of the fake. The generic suites (the invariant harness) accept these and still
        require an imported twin to answer the same. The kernel's injected faults are not asked."""
        return False

    def bench_operations(self) -> list[BenchOperation]:
        """One timed request per public operation (see :mod:`fakes.kernel.benchops`): what the
        benchmark's ``operations`` part times and the contract tests require for every path of
        :meth:`openapi_document`."""
        return []

    def bench_mix_operations(self) -> list[BenchOperation]:
        """Where :meth:`bench_mix` draws its good calls from: what a client following the service's
        rules sends (:meth:`bench_operations` unless a service says otherwise)."""
        return self.bench_operations()

    def bench_mix(self) -> list[BenchOperation]:
        """The requests of this service's realistic traffic, replayed in a loop by the benchmark's
        ``mixed`` part: by default built from :meth:`bench_mix_operations` (its reads, the sample
        request, and wrong keys, unknown ids and bad parameters, each sent once to keep only the
        reads that answer 2xx and the errors that answer 4xx: :func:`fakes.kernel.benchops.probed_mix`).
        Call after :meth:`sample_request`."""
        return probed_mix(self, self.bench_mix_operations())

    def dashboard_panels(self) -> list[dict[str, Any]]:
        """This service's panels on its dashboard (``/_fake/ui``), read from its state: plain data
        made with :mod:`fakes.kernel.dashboard.panels` (titled tables, timelines, facts). Called
        only when a browser asks; a panel that raises becomes an error note on the page."""
        return []

    def sample_request(self) -> tuple[str, str]:
        """(method, path+query) of this service's heaviest common request, ready to succeed with
        :meth:`auth_headers` (prepares state and moves the clock if it must); the benchmark's
        request for this service."""
        return ("GET", "/openapi.json")

    # -- the ASGI app ------------------------------------------------------------------------
    @property
    def app(self) -> FakeApp:
        if self._app is None:
            self._app = FakeApp(self, self._service_router, self._control_router)
        return self._app

    def body_required(self, scope: Any) -> bool:
        """Whether the control operation a request was routed to documents its body as required
        (the kernel then refuses an empty one with a 400: the documents say what the server does).
        Read from the service's document once per class, not per world."""
        route = scope.get("route")
        path = getattr(route, "path", None)
        if path is None:
            return False
        cls = type(self)
        required = _REQUIRED_BODIES.get(cls)
        if required is None:
            document = {"paths": {**control_paths(), **self.openapi_document().get("paths", {})}}
            required = _REQUIRED_BODIES[cls] = required_bodies(document)
        return template_key(scope["method"], path) in required

    @property
    def local_app(self) -> Any:
        """This fake's ASGI app for callers in process that send paths below its base URL (without
        its mount prefix or world segment), as one fake standing behind another does (the relay's
        upstream ``{"fake": ...}``): the same answers ``base_url + path`` gets over HTTP."""
        return self.app.local

    def _service_router(self) -> ServiceRouter:
        return shared_router(self._sharing(), "service", self._service_routes(),
                             Fake._service_routes, ServiceRouter)

    def _sharing(self) -> Worlds[Fake] | None:
        """The registry of the fake this one is a world of (None: not a world)."""
        return None if self._template is None else self._template.worlds

    def _service_routes(self) -> list[BaseRoute]:
        # the service's routes first: they are what requests hit (routers try routes in order)
        return [*self.routes(), OPENAPI_ROUTE]

    def _control_router(self) -> Router:
        return shared_router(self._sharing(), "control", self._control_routes(),
                             lambda template: template._control_routes(worlds=False),
                             lambda routes: Router(routes=routes))

    def _control_routes(self, worlds: bool = True) -> list[BaseRoute]:
        # the kernel's routes are shared by every fake and world; the worlds' are the default world's
        return [*control_routes(), *STUB_ROUTES, *(world_control_routes(self) if worlds else ()), *DASHBOARD_ROUTES,
                *under_control_prefix(self.control_routes())]

    def openapi(self) -> dict[str, Any]:
        if self._openapi is None:
            self._openapi = merge_control_plane(self.openapi_document(), prefix=self.prefix,
                                                max_fault_latency_ms=self.faults.max_latency_ms,
                                                service=self.name, seed=self.seed, model_fields=self._model_fields(),
                                                model_required=self.state_required_fields)
            if self.worlds is not None:
                self._openapi["paths"].update(world_openapi_paths())
            self._openapi["paths"].update(dashboard_paths())
            secure_control_plane(self._openapi, control_token=self.control_token is not None)
        return self._openapi

    def _model_fields(self) -> list[str]:
        """The fields of this service's exported model (the same for every fake of the class)."""
        fields = _MODEL_FIELDS.get(type(self))
        if fields is None:
            fields = _MODEL_FIELDS[type(self)] = sorted(self.model.to_state())
        return fields

    def build_world(self, **kwargs: Any) -> Fake:
        """A new fake of this class from this fake's constructor arguments and ``kwargs``, sharing
        what cannot differ from it (fakes/kernel/worldshare.py): one of its worlds."""
        with building_world(self):
            return type(self)(*self.init_args, **{**self.init_kwargs, **kwargs})

    # -- control plane as Python -------------------------------------------------------------
    def world(self, world_id: str, *, state: dict[str, Any] | None = None) -> Fake:
        """The world ``world_id`` of this fake (created on first use, from ``state`` if given):
        a fake of its own with its own clock, state, faults and journal, the same one HTTP
        clients reach under ``/_w/<world_id>/``. See :mod:`fakes.kernel.worlds`."""
        if self.worlds is None:
            raise ValueError(f"{self!r} is a world itself; worlds do not nest")
        return self.worlds.get(world_id, state=state)

    def reset(self) -> None:
        """Back to the initial seeded state: model, faults, journal, and the clock unless shared.

        Verdicts stay: they judge the client, not the fake's world (``clear_verdicts`` empties them)."""
        if self._owns_clock:
            self.clock.reset()
        self._epoch_high += 1  # a new epoch: what the new model issues cannot repeat what was issued
        self.epoch = self._epoch_high
        self.model = self.create_model()
        self.faults = self.new_faults()
        self.stubs = self.new_stubs()
        self.journal.clear()

    def advance(self, seconds: float) -> int:
        now = self.clock.advance(seconds)
        self.clock_moved()
        return now

    def set_time_ms(self, epoch_ms: int) -> int:
        now = self.clock.set_ms(epoch_ms)
        self.clock_moved()
        return now

    def clock_moved(self) -> None:
        """Hook: the clock was moved through this fake (``advance``, ``set_time_ms``, ``POST
        /_fake/clock``); a service whose model acts on time passing (webhooks) catches up here."""

    def journal_entries(self, **filters: Any) -> list[dict[str, Any]]:
        return self.journal.entries(**filters)

    def clear_journal(self) -> None:
        self.journal.clear()

    def find_requests(self, method: str | None = None, path: str | None = None,
                      **criteria: Any) -> list[dict[str, Any]]:
        """The journal entries matching every criterion given, oldest first: ``method``, ``path``
        (exact or glob), ``headers``, ``query``, ``form`` (name -> string or matcher), ``json`` (a
        fragment the body contains), ``body_contains``, ``status`` (see :mod:`fakes.kernel.verify`)."""
        from .verify import RequestPattern, find

        return find(self.journal, RequestPattern.build(method, path, **criteria))

    def count_requests(self, method: str | None = None, path: str | None = None, **criteria: Any) -> int:
        """How many kept journal entries match (the criteria of :meth:`find_requests`)."""
        from .verify import RequestPattern, search

        return search(self.journal, RequestPattern.build(method, path, **criteria), near_misses=0).count

    def assert_requested(self, method: str | None = None, path: str | None = None, *, times: int | None = None,
                         **criteria: Any) -> list[dict[str, Any]]:
        """Assert that ``times`` kept requests (None: at least one) match the criteria of
        :meth:`find_requests`; returns them. Else an AssertionError that names the closest entries
        and the criterion each one failed (``times=0``: assert that none was sent)."""
        __tracebackhide__ = True  # pytest shows the caller's line
        from .verify import RequestPattern, assert_requested, check_times

        return assert_requested(self.journal, RequestPattern.build(method, path, **criteria), check_times(times))

    def verdicts(self, severity: str | None = None) -> list[dict[str, Any]]:
        """Every client rule broken so far (of one ``severity`` if given): rule, severity,
        explanation, source, count, first and last offending request. See docs/verdicts.md."""
        self.settle_verdicts()
        return self.verdict_log.to_list(severity)

    def settle_verdicts(self) -> None:
        """Hook: record the verdicts a service can judge only once its client did something else
        (``self.verdict_log.record(rule, detail, request)``), because they are about to be read.
        Must change no state a client sees (the export stays the same). Default: none."""

    def clear_verdicts(self) -> None:
        """Forget every verdict (the rules and their silencing stay)."""
        self.verdict_log.clear()

    def add_fault(self, **spec: Any) -> dict[str, Any]:
        return self.faults.add(spec).to_dict()

    def list_faults(self) -> list[dict[str, Any]]:
        return [rule.to_dict() for rule in self.faults.rules]

    def remove_fault(self, fault_id: str) -> bool:
        return self.faults.remove(fault_id)

    def clear_faults(self) -> None:
        self.faults.clear()

    def new_faults(self) -> FaultSet:
        return FaultSet(self.seed, max_latency_ms=self.max_fault_latency_ms)

    # stubs: fakes/kernel/stubs.py, docs/testing.md ("Stubs")
    def stub(self, method: str | None = None, path: Any = None, *, response: dict[str, Any] | None = None,
             responses: list[dict[str, Any]] | None = None, **options: Any) -> StubRule:
        """Add a stub: ``method``, ``path`` and criteria keywords (``query``, ``headers``, ``json`` ...)
        say which requests it answers, ``response`` (or ``responses``) what with; options ``place``,
        ``priority``, ``times``, ``cycle``, ``scenario``, ``requires_state``, ``new_state``,
        ``templates``, ``name``. Returns the stub (its ``fired`` counts its answers)."""
        return self.add_stub(stub_spec(method, path, response, responses, options))

    def add_stub(self, spec: dict[str, Any]) -> StubRule:
        """Add a stub given as the JSON of ``POST /_fake/stubs``."""
        return self.stubs.add(spec)

    def remove_stub(self, stub_id: str) -> bool:
        return self.stubs.remove(stub_id)

    def clear_stubs(self) -> None:
        self.stubs.clear()

    def set_scenario(self, name: str, state: str) -> None:
        """Move a stub scenario to ``state`` (every scenario starts in ``Started``)."""
        self.stubs.set_scenario(name, state)

    def import_wiremock(self, document: Any, *, place: str = "before", source: str = "request") -> dict[str, Any]:
        """Add WireMock mappings (``{"mappings": [...]}`` or one mapping) as stubs: ``{"imported": [...],
        "refused": [{"source", "reason"}]}`` (fakes/kernel/wiremock.py)."""
        from .wiremock import import_into, mappings_in
        from .wiremock_templates import Untranslatable

        try:
            found = mappings_in(document, source)
        except Untranslatable as exc:
            raise ControlError(400, str(exc), code="invalid_mappings") from None
        return import_into(self.stubs, found, place=place).to_dict()

    def new_stubs(self) -> StubSet:
        return StubSet(max_latency_ms=self.faults.max_latency_ms)

    def export_state(self) -> dict[str, Any]:
        return {
            "service": self.name,
            "format": STATE_FORMAT,
            "seed": self.seed,
            "settings": self.settings.to_dict(),
            "clock": self.clock.to_state(),
            "faults": self.faults.to_state(),
            "stubs": self.stubs.to_state(),
            "epoch": self.epoch,
            "model": self.model.to_state(),
        }

    def import_state(self, state: dict[str, Any]) -> None:
        """Replace the state by one from :meth:`export_state`; nothing changes if it is refused.

        Everything is validated before anything changes (types, ranges and references, the
        model's part by its ``load_state``); a refusal is a 400 ``invalid_state`` naming the field.
        Settings are not imported: a state whose settings differ from this fake's is refused
        (``settings.<name>``), since data made under other rules would not mean the same here;
        start the fake with those settings instead. A state without ``settings`` is taken as is.
        The clock is restored to the exported instant even if that is earlier: an import is a
        restore, not a clock move (in real or scaled mode time then runs on from there)."""
        if not isinstance(state, dict):
            raise StateError("state", "must be an object from GET /_fake/state")
        if state.get("service") != self.name:
            message = (f"this state belongs to {echo(state['service'])}, not {self.name!r}" if "service" in state
                       else f"missing: a state from GET /_fake/state names its service ({self.name!r})")
            raise ControlError(400, message, code="invalid_state", field="service")
        unknown = sorted(set(state) - set(STATE_KEYS))
        if unknown:
            raise StateError(unknown[0], f"is not a part of a state; a state from GET /_fake/state holds "
                                         f"{', '.join(STATE_KEYS)}")
        if state.get("format") != STATE_FORMAT:
            raise StateError("format", f"must be {STATE_FORMAT}")
        if state.get("seed") != self.seed or isinstance(state.get("seed"), bool):
            raise StateError("seed", f"differs from this fake's seed {self.seed}")
        # HTTP bodies are checked at the door; Python callers here. Integers past 64 bits only in fault
        # bodies (answered as sent); the model's must fit what every JSON encoder writes
        problem = (check_json_value({k: v for k, v in state.items() if k not in ("faults", "stubs")})
                   or check_json_value(state.get("faults"), "faults", integers=False)
                   or check_json_value(state.get("stubs"), "stubs", integers=False))
        if problem is not None:
            raise StateError(problem.partition(":")[0], problem.partition(": ")[2])
        self._check_settings(state)
        try:
            clock_state = Clock.check_state(state.get("clock"))
        except ClockError as exc:
            raise StateError("clock", str(exc)) from None
        epoch = check_integer(state.get("epoch", 0), "epoch", minimum=0, maximum=2**31 - 1)
        previous_epoch = self.epoch
        self.epoch = epoch  # the model issues what it issues next under the epoch it was exported with
        try:
            model = self.create_model()
            if "model" not in state:
                raise StateError("model", "is missing")
            model.load_state(state["model"])
            faults = self.new_faults()
            faults.load_state(state.get("faults", {}))
            stubs = self.new_stubs()
            stubs.load_state(state.get("stubs", {}))
            dumps(model.to_state())  # what was loaded can be exported again
        except ControlError:
            self.epoch = previous_epoch
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            # a model whose load_state does not validate everything yet: still a 400, never a 500
            self.epoch = previous_epoch
            raise ControlError(400, f"invalid state: {echo(exc)}", code="invalid_state", field="model") from None
        self._epoch_high = max(self._epoch_high, epoch)
        self.clock.load_state(clock_state)
        self.faults = faults
        self.stubs = stubs
        self.model = model

    def _check_settings(self, state: dict[str, Any]) -> None:
        if "settings" not in state:
            return
        imported = state["settings"]
        if not isinstance(imported, dict):
            raise StateError("settings", "must be an object")
        own = json.loads(dumps(self.settings.to_dict()))
        for name in sorted(set(own) | set(imported)):
            if name not in own:
                raise StateError(f"settings.{name}", f"is not a setting of {self.name}")
            if name in imported and imported[name] != own[name]:
                raise StateError(f"settings.{name}", f"is {echo(imported[name])} in the state but {echo(own[name])} "
                                 "here; start this fake with the state's settings to import it")

    # -- harness -----------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return "http://testserver" + self.prefix

    def client(self, **kwargs: Any) -> httpx.Client:
        """A sync httpx client wired to the app in process (no socket)."""
        kwargs.setdefault("base_url", self.base_url)
        return httpx.Client(transport=SyncFakeTransport(self.app), **kwargs)

    def async_client(self, **kwargs: Any) -> httpx.AsyncClient:
        kwargs.setdefault("base_url", self.base_url)
        return httpx.AsyncClient(transport=AsyncFakeTransport(self.app), **kwargs)

    @contextlib.contextmanager
    def serve(self, host: str = "127.0.0.1", port: int = 0, *, timeouts: ReadTimeouts | None = None,
              tls: ssl.SSLContext | None = None) -> Iterator[str]:
        """Serve over real HTTP in a background thread; yields the base URL (prefix included).
        ``timeouts``: the header and body read timeouts (default: FAKES_HEADER_TIMEOUT /
        FAKES_BODY_TIMEOUT, else 10 s and 30 s; fakes/kernel/protocol.py). ``tls``: serve HTTPS
        with this server context (``fakes.kernel.tls.local_certificate().context``); the URL is
        then ``https://``."""
        from .server import ServerThread

        with ServerThread([(self.app, host, port)], timeouts=timeouts, tls=tls) as (bound,):
            shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
            yield f"{'https' if tls is not None else 'http'}://{shown}:{bound[1]}{self.prefix}"

    def __repr__(self) -> str:
        return f"<{type(self).__name__} seed={self.seed} clock={self.clock.spec}>"


#: per Fake class: its control operations whose body is required (Fake.body_required)
_REQUIRED_BODIES: dict[type, frozenset[tuple[str, str]]] = {}
#: each service class's model fields, as its export names them (for the state schema; see Fake._model_fields)
_MODEL_FIELDS: dict[type, list[str]] = {}


async def _serve_openapi(request: Request) -> Response:
    fake: Fake = request.scope["app"]  # the fake or world serving the request
    return json_response(fake.openapi())


#: one route object for every fake and world (their routers are shared where the service's are)
OPENAPI_ROUTE = Route("/openapi.json", _serve_openapi, methods=["GET"])
