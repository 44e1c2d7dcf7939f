"""State and rules of the filings fake: keys, users' companies and filings, and every query.

Plain Python: no HTTP, time only from the clock. The generated catalogue is shared, immutable
derived data (:func:`~fakes.filings.catalogue.catalogue_for`); everything a client or the control
plane changes lives here and is what :meth:`FilingsModel.to_state` exports.
"""

from __future__ import annotations

import itertools
from typing import Any

from fakes.kernel.clock import Clock
from fakes.kernel.errors import ServiceError
from fakes.kernel.verdicts import Broken

from .catalogue.arith import stable_hash
from .catalogue.companies import CompanyCore, company_core, company_full_json, company_minimal_json
from .catalogue.directory import CompanyFilter, directory_for
from .catalogue.filing_types import TYPES
from .catalogue.generator import Catalogue, Scale, catalogue_for
from .catalogue.markdown import render_markdown
from .catalogue.markets import MARKETS, market_language_indexes
from .catalogue.records import (
    FilingRecord,
    RenderContext,
    detail_json,
    generated_record,
    processing_status,
    summary_json,
)
from .keys import TIERS, ApiKey, unauthenticated, year_of
from .params import CompanyParams, FilingParams
from .query import FilingFilter, GeneratedSelection, merged_page
from .rules import CALLS_AFTER_QUOTA_REFUSAL
from .settings import MAX_QUOTA, FilingsSettings
from .state import read_state
from .userdata import USER_ID_BASE, new_company, new_filing

KEY_SALT = 0x4B45
NOT_FOUND = "Not found."
_instances = itertools.count(1)


class FilingsModel:
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

    def begin_call(self, token: str | None, feature: str | None = None, broken: Broken | None = None) -> ApiKey:
        """The caller's key, once it may make this call: 401, 403 and 429 refuse (and do not count).

        A call refused for the quota after an earlier quota refusal of the same period breaks
        ``filings/calls-after-quota-refusal`` (appended to ``broken``)."""
        key = self.keys.get(token or "")
        if key is None:
            raise unauthenticated()
        if feature is not None:
            key.require(feature)
        try:
            key.require_quota(self.clock.now_ms(), self.settings.burst_limit)
        except ServiceError:
            if key.refused_year == key.year and broken is not None:
                broken.append((CALLS_AFTER_QUOTA_REFUSAL, f"key {key.key} ({key.tier}) called again after its "
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
        return company_full_json(self.seed, core)

    def list_companies(self, params: CompanyParams) -> tuple[int, list[dict[str, Any]]]:
        flt = CompanyFilter(params.market_indexes, params.class_indexes, params.isin, params.lei, params.ticker,
                            params.search)
        users = [core for core in self.companies.values() if flt.matches(core)]
        total, stream = directory_for(self.catalogue).ordered(flt, users, params.ordering, params.descending)
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

    def filing_filter(self, params: FilingParams) -> FilingFilter:
        """The query's filter, with company ISIN and LEI resolved to company ids."""
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
        return FilingFilter(company_ids, params.type_indexes, params.language_indexes, params.market_indexes,
                            params.released_from_s, params.released_to_s)

    def list_filings(self, params: FilingParams, base_url: str) -> tuple[int, list[dict[str, Any]]]:
        flt = self.filing_filter(params)
        now_s = self.now_s()
        users = [r for r in self.filings.values() if r.added_s <= now_s and flt.matches(r)]
        selection = GeneratedSelection(self.catalogue, flt, self.visible_count())
        size = params.paging.page_size
        offset = (params.paging.page - 1) * size
        total, page = merged_page(selection, users, params.ordering, offset, size)
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
        core = self.core(record.company_id)
        assert core is not None
        return render_markdown(record, core, self.seed)

    def add_filing(self, body: dict[str, Any], base_url: str) -> dict[str, Any]:
        company_id = body.get("company")
        core = (self.core(company_id) if isinstance(company_id, int) and not isinstance(company_id, bool)
                else None)
        main_language = 0
        if core is not None:
            main_language = (self.catalogue.main_language[core.id - 1] if core.id < USER_ID_BASE
                             else market_language_indexes(MARKETS[core.market_index])[0])
        record = new_filing(body, USER_ID_BASE + len(self.filings) + 1, self.now_s(), core, main_language)
        self.filings[record.id] = record
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
            "companies": [_company_state(core) for core in self.companies.values()],
            "filings": [record.to_state() for record in self.filings.values()],
        }

    def load_state(self, state: dict[str, Any]) -> None:
        """Validate all of an exported state (StateError names the field), then take it."""
        loaded = read_state(state, seed=self.seed, scale_label=self.scale.label,
                            has_company=lambda company_id: self.catalogue.has_company(company_id))
        self.keys, self.keys_issued, self.demo_keys = loaded.keys, loaded.keys_issued, loaded.demo_keys
        self.companies, self.filings = loaded.companies, loaded.filings
        self.version += 1


def _company_state(core: CompanyCore) -> dict[str, Any]:
    return {name: (list(value) if isinstance(value, tuple) else value)
            for name, value in ((field, getattr(core, field)) for field in CompanyCore.__slots__)}

