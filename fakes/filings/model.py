"""State and rules of the filings fake: keys, users' companies and filings, and every query.

Plain Python: no HTTP, time only from the clock. The generated catalogue is shared, immutable
derived data (:func:`~fakes.filings.catalogue.catalogue_for`); everything a client or the control
plane changes lives here and is what :meth:`FilingsModel.to_state` exports.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from fakes.kernel.clock import Clock
from fakes.kernel.errors import ServiceError
from fakes.kernel.verdicts import Broken

from . import selection
from .catalogue.arith import stable_hash
from .catalogue.companies import CompanyCore, company_core, company_full_json, company_minimal_json
from .catalogue.directory import CompanyFilter, directory_for, user_sort_key
from .catalogue.filing_types import TYPES
from .catalogue.generator import Catalogue, Scale, catalogue_for
from .catalogue.markets import MARKETS, market_language_indexes
from .catalogue.records import (
    FilingRecord,
    RenderContext,
    detail_json,
    generated_record,
    processing_status,
    summary_json,
)
from .extras import ModelExtras
from .filingparams import TIME_RANGES, FilingParams
from .keys import TIERS, ApiKey, unauthenticated, year_of
from .params import CompanyParams
from .query import FilingFilter, GeneratedSelection, merged_page
from .regions import PeriodTest
from .rules import CALLS_AFTER_QUOTA_REFUSAL
from .settings import MAX_QUOTA, FilingsSettings
from .state import company_state, read_state
from .userdata import USER_ID_BASE, new_company, new_filing

KEY_SALT = 0x4B45
NOT_FOUND = "Not found."
_instances = itertools.count(1)


class FilingsModel(ModelExtras):
    def __init__(self, *, seed: int, clock: Clock, settings: FilingsSettings, epoch: int = 0) -> None:
        self.seed = seed
        self.clock = clock
        self.settings = settings
        self.scale = Scale.parse(settings.scale)
        self.keys: dict[str, ApiKey] = {}
        self.companies: dict[int, CompanyCore] = {}
        self.filings: dict[int, FilingRecord] = {}
        self.keys_issued = 0
        self.epoch = 0  # the demo keys are the same in every epoch: `fakes serve` prints them once
        self.demo_keys = {tier: self.create_key(tier).key for tier in TIERS}
        self.epoch = epoch  # the fake's reset epoch: keys created after a reset never repeat earlier ones
        self.instance = next(_instances)  # tells this model's cached responses from another's
        self.version = 0  # bumped by every change that can change a response body
        self.init_extras()

    @property
    def catalogue(self) -> Catalogue:
        """Built on first use and shared per (seed, scale): creating a model stays cheap."""
        return catalogue_for(self.seed, self.scale.label)

    def now_s(self) -> int:
        return self.clock.now_ms() // 1000

    # -- keys ----------------------------------------------------------------------------------
    def default_quota(self, tier: str) -> int | None:
        quota = {"free": self.settings.free_quota, "standard": self.settings.standard_quota,
                 "level2": self.settings.level2_quota, "enterprise": self.settings.enterprise_quota}[tier]
        return quota if quota > 0 or tier == "free" else None

    def create_key(self, tier: str, quota: int | str | None = "default") -> ApiKey:
        """A new API key; ``quota`` is calls a year, None for unlimited, "default" for the tier's."""
        if tier not in TIERS:
            raise ServiceError(400, f"tier must be one of {', '.join(TIERS)}", code="invalid_body")
        if quota == "default":
            quota = self.default_quota(tier)
        if quota is not None and (isinstance(quota, bool) or not isinstance(quota, int) or not 0 <= quota <= MAX_QUOTA):
            raise ServiceError(400, f"quota must be a whole number from 0 to {MAX_QUOTA} or null (unlimited)",
                               code="invalid_body")
        self.keys_issued += 1
        number = (self.keys_issued,) if self.epoch == 0 else (self.epoch, self.keys_issued)
        token = f"fr_{tier}_{stable_hash(self.seed, KEY_SALT, *number):016x}"
        now_ms = self.clock.now_ms()
        key = ApiKey(token, tier, quota, now_ms, year_of(now_ms))
        self.keys[token] = key
        return key

    def begin_call(self, token: str | None, feature: str | None = None, broken: Broken | None = None, *,
                   counted: bool = True, write: bool = False) -> ApiKey:
        """The caller's key, once it may make this call: 401, 402 (an agent's spent sandbox), 403 and
        429 refuse (and do not count). ``counted=False``: a call the quota neither counts nor refuses.

        A call refused for the quota after an earlier quota refusal of the same period breaks
        ``filings/calls-after-quota-refusal`` (appended to ``broken``)."""
        key = self.keys.get(token or "")
        if key is None:
            raise unauthenticated()
        if key.agent is not None:
            self.agent_gate(key, feature, write)
        if feature is not None:
            key.require(feature)
        if not counted:
            return key
        try:
            key.require_quota(self.clock.now_ms(), self.settings.burst_limit)
        except ServiceError:
            if key.refused_year == key.year and broken is not None:
                broken.append((CALLS_AFTER_QUOTA_REFUSAL, f"a {key.tier} key called again after its "
                                                          f"allowance of {key.quota} calls for {key.year} was refused"))
            key.refused_year = key.year
            raise
        return key

    # -- companies -----------------------------------------------------------------------------
    def core(self, company_id: int) -> CompanyCore | None:
        if company_id >= USER_ID_BASE:
            return self.companies.get(company_id)
        if self.catalogue.has_company(company_id):
            return company_core(self.catalogue, company_id)
        return None

    def company_json(self, company_id: int) -> dict[str, Any]:
        core = self.core(company_id)
        if core is None:
            raise ServiceError(404, NOT_FOUND, code="not_found")
        found = company_full_json(self.seed, core)
        canonical = self.merges.shells.get(core.id)
        if canonical is not None:
            found["is_merged"] = True
            found["merged_into"] = {"id": canonical, "name": self.company_name(canonical)}
        return found

    def list_companies(self, params: CompanyParams,
                       watched: frozenset[int] = frozenset()) -> tuple[int, list[dict[str, Any]]]:
        flt = CompanyFilter(params.market_indexes, params.class_indexes, params.isin, params.lei, params.ticker,
                            params.search)
        hidden = set(self.merges.shells)  # retired duplicates leave the list
        if params.on_watchlist is False:
            hidden |= watched
        users = [core for core in self.companies.values() if flt.matches(core) and core.id not in hidden]
        stream: Iterator[int | CompanyCore]
        if not params.listed:  # every company here is LISTED
            total, stream = 0, iter(())
        elif params.on_watchlist:
            chosen = [core for cid in sorted(watched) if cid not in hidden and (core := self.core(cid)) is not None
                      and flt.matches(core)]
            total, stream = _ordered_cores(chosen, params.ordering, params.descending)
        else:
            total, stream = directory_for(self.catalogue).ordered(flt, users, params.ordering, params.descending)
            generated_hidden = [cid for cid in hidden if cid < USER_ID_BASE and (core := self.core(cid)) is not None
                                and flt.matches(core)]
            if generated_hidden:
                gone = set(generated_hidden)
                total -= len(gone)
                stream = (item for item in stream if isinstance(item, CompanyCore) or item not in gone)
        size = params.paging.page_size
        offset = (params.paging.page - 1) * size
        if offset >= total and params.paging.page > 1:
            raise ServiceError(404, "Invalid page.", code="invalid_page")
        render = (lambda core: company_full_json(self.seed, core)) if params.full_view else company_minimal_json
        page = []
        for item in itertools.islice(stream, offset, offset + size):
            page.append(render(item if isinstance(item, CompanyCore) else company_core(self.catalogue, item)))
        return total, page

    def identifier_taken(self, identifier: str) -> bool:
        flt = (CompanyFilter(lei=identifier) if len(identifier) == 20 else CompanyFilter(isin=identifier))
        if directory_for(self.catalogue).candidates(flt):
            return True
        return any(flt.matches(core) for core in self.companies.values())

    def add_company(self, body: dict[str, Any]) -> dict[str, Any]:
        company_id = USER_ID_BASE + len(self.companies) + 1
        core = new_company(body, company_id, self.clock.now_ms(), self.identifier_taken)
        self.companies[company_id] = core
        self.version += 1
        return company_full_json(self.seed, core)

    # -- filings -------------------------------------------------------------------------------
    def visible_count(self) -> int:
        """Generated filings released by now (all of the catalogue's, or more as time passes)."""
        released = self.catalogue.timeline.count_released_by(self.now_s())
        return released if self.settings.live_feed else min(released, self.scale.filings)

    def render_context(self, base_url: str) -> RenderContext:
        return RenderContext(base_url, self.now_s(), self.settings.processing_delay_s)

    def record(self, filing_id: int) -> FilingRecord:
        """A visible filing by id, or 404."""
        if filing_id >= USER_ID_BASE:
            record = self.filings.get(filing_id)
            if record is not None and record.added_s <= self.now_s():
                return record
        elif 1 <= filing_id <= self.visible_count():
            return generated_record(self.catalogue, filing_id - 1)
        raise ServiceError(404, NOT_FOUND, code="not_found")

    def company_minimal(self, company_id: int) -> dict[str, Any]:
        core = self.core(company_id)
        assert core is not None, f"filing of unknown company {company_id}"
        return company_minimal_json(core)

    def filing_filter(self, params: FilingParams, watched: frozenset[int] = frozenset()) -> FilingFilter:
        """The query's filter: company ISIN, LEI and ``on_watchlist`` (``watched``: the caller's
        watchlist) resolved to company ids."""
        company_ids: frozenset[int] | None = None
        if params.company_id is not None:
            company_ids = frozenset({params.company_id})
        for identifier in (params.company_isin, params.lei):
            if identifier is None:
                continue
            flt = CompanyFilter(isin=identifier) if identifier is params.company_isin else CompanyFilter(
                lei=identifier)
            ids = set(directory_for(self.catalogue).candidates(flt))
            ids |= {core.id for core in self.companies.values() if flt.matches(core)}
            company_ids = frozenset(ids) if company_ids is None else company_ids & ids
        excluded = None
        if params.on_watchlist is True:
            company_ids = watched if company_ids is None else company_ids & watched
        elif params.on_watchlist is False and watched:
            excluded = watched
        times = params.times
        release, added, updated = (times.get(name, (None, None)) for name in TIME_RANGES)
        period = None
        if params.fiscal_year is not None or params.fiscal_period is not None or params.period_end_from is not None \
                or params.period_end_to is not None:
            period = PeriodTest(params.fiscal_year, params.fiscal_period, params.period_end_from, params.period_end_to)
        return FilingFilter(company_ids, params.type_indexes, params.language_indexes, params.market_indexes,
                            release[0], release[1], excluded, added[0], added[1], updated[0], updated[1],
                            params.ingestion_mode, period, params.search, params.listed)

    def company_name(self, company_id: int) -> str:
        core = self.core(company_id)
        return core.name if core is not None else ""

    def list_filings(self, params: FilingParams, base_url: str,
                     watched: frozenset[int] = frozenset()) -> tuple[int, list[dict[str, Any]]]:
        flt = self.filing_filter(params, watched)
        now_s = self.now_s()
        users = [r for r in self.filings.values()
                 if r.added_s <= now_s and flt.matches(r, self.company_name(r.company_id))]
        source, bounds = selection.generated(self.catalogue, flt, now_s)
        generated = GeneratedSelection(self.catalogue, flt, self.visible_count(), source, bounds)
        size = params.paging.page_size
        offset = (params.paging.page - 1) * size
        total, page = merged_page(generated, users, params.ordering, offset, size)
        if not page and params.paging.page > 1:
            raise ServiceError(404, "Invalid page.", code="invalid_page")
        ctx = self.render_context(base_url)
        render = detail_json if params.full_view else summary_json
        shown = []
        for item in page:
            record = item if isinstance(item, FilingRecord) else generated_record(self.catalogue, item)
            shown.append(render(record, self.company_minimal(record.company_id), ctx))
        return total, shown

    def filing_json(self, filing_id: int, base_url: str) -> dict[str, Any]:
        record = self.record(filing_id)
        return detail_json(record, self.company_minimal(record.company_id), self.render_context(base_url))

    def markdown(self, filing_id: int) -> str:
        """A filing's Markdown once converted; 404 with the conversion status before that."""
        record = self.record(filing_id)
        status = processing_status(record, self.now_s(), self.settings.processing_delay_s)
        if status != "COMPLETED":
            retryable = status in ("PENDING", "PROCESSING")
            headers = {}
            if retryable:
                headers["Retry-After"] = str(max(1, record.added_s + self.settings.processing_delay_s - self.now_s()))
            raise ServiceError(404, "Processed content not found for this filing.", code="markdown_not_found",
                               headers=headers, processing_status=status,
                               reason="not_processed" if retryable else "content_missing", retryable=retryable)
        return self.markdown_text(record)

    def add_filing(self, body: dict[str, Any], base_url: str) -> dict[str, Any]:
        company_id = body.get("company")
        core = (self.core(company_id) if isinstance(company_id, int) and not isinstance(company_id, bool)
                else None)
        main_language = 0
        if core is not None:
            main_language = (self.catalogue.main_language[core.id - 1] if core.id < USER_ID_BASE
                             else market_language_indexes(MARKETS[core.market_index])[0])
        now_s = self.now_s()
        record = new_filing(body, USER_ID_BASE + len(self.filings) + 1, now_s, core, main_language)
        self.filings[record.id] = record
        if record.added_s <= now_s:  # it reached the platform now: webhooks hear of it now
            self.webhooks.received_now(self, record, now_s)
        self.version += 1
        return detail_json(record, company_minimal_json(core) if core else {}, self.render_context(base_url))

    # -- filing types --------------------------------------------------------------------------
    def filing_types(self, search: str, category: int | None) -> list[dict[str, Any]]:
        term = search.strip().lower()
        return [t.to_json() for t in TYPES
                if (not term or term in t.name.lower() or term in t.code.lower() or term in t.description.lower())
                and (category is None or t.category_id == category)]

    def filing_type(self, type_id: int) -> dict[str, Any]:
        for filing_type in TYPES:
            if filing_type.id == type_id:
                return filing_type.to_json()
        raise ServiceError(404, NOT_FOUND, code="not_found")

    # -- state ---------------------------------------------------------------------------------
    def to_state(self) -> dict[str, Any]:
        return {
            "catalogue": {"seed": self.seed, "scale": self.scale.label},
            "keys": [key.to_state() for key in self.keys.values()],
            "keys_issued": self.keys_issued,
            "demo_keys": self.demo_keys,
            "companies": [company_state(core) for core in self.companies.values()],
            "filings": [record.to_state() for record in self.filings.values()],
            "versions": [{"filing": filing_id, **version.to_state()} for filing_id, versions in self.versions.items()
                         for version in versions],
            "watchlists": self.watchlists.to_state(),
            "merges": self.merges.to_state(),
            "agents": self.agents.to_state(),
            "webhooks": self.webhooks.to_state(),
        }

    def load_state(self, state: dict[str, Any]) -> None:
        """Validate all of an exported state (StateError names the field), then take it."""
        loaded = read_state(state, model=self)
        self.keys, self.keys_issued, self.demo_keys = loaded.keys, loaded.keys_issued, loaded.demo_keys
        self.companies, self.filings, self.versions = loaded.companies, loaded.filings, loaded.versions
        self.watchlists, self.merges, self.agents = loaded.watchlists, loaded.merges, loaded.agents
        self.webhooks = loaded.webhooks
        self.version += 1


def _ordered_cores(cores: list[CompanyCore], ordering: str, descending: bool) -> tuple[int, Iterator[CompanyCore]]:
    ranked = sorted(cores, key=lambda core: user_sort_key(ordering, core), reverse=descending)
    return len(ranked), iter(ranked)
