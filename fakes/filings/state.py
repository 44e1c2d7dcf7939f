"""Reading an imported filings state: every key, company and filing validated before it is taken.

:meth:`~fakes.filings.model.FilingsModel.load_state` calls :func:`read_state` (its ``to_state``
writes what this reads); anything a later request would trust (a tier, a market index, a company a
filing points at, an id the next ``POST`` would reuse) is checked here, and a refusal names the
field (``model.filings[2].type_index``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

from fakes.kernel.statecheck import StateReader, check_text, refuse

from .agent import Agents
from .catalogue.companies import CompanyCore
from .catalogue.filing_types import TYPES
from .catalogue.identifiers import is_valid_isin, is_valid_lei
from .catalogue.isic import CLASSES
from .catalogue.markets import LANGUAGES, MARKETS
from .catalogue.records import FilingRecord
from .history import MAX_VERSIONS, Version
from .keys import TIERS, ApiKey
from .merges import Merges
from .userdata import USER_ID_BASE
from .watchlist import Watchlists
from .webhookbook import WebhookBook

if TYPE_CHECKING:
    from .catalogue.generator import Catalogue, Scale
    from .settings import FilingsSettings

MAX_EPOCH_S = 253_402_300_799  # the end of year 9999, what the service's date-times can write
MAX_COUNT = 2**40
FISCAL_PERIODS = ("FY", "Q1", "Q2", "Q3", "Q4", "H1", "H2", "9M")
KEY_PATTERN = r"[A-Za-z0-9_-]{1,200}"
MAX_MARKDOWN = 10_000_000


@dataclass
class FilingsState:
    keys: dict[str, ApiKey]
    keys_issued: int
    demo_keys: dict[str, str]
    companies: dict[int, CompanyCore]
    filings: dict[int, FilingRecord]
    versions: dict[int, list[Version]]
    watchlists: Watchlists
    merges: Merges
    agents: Agents
    webhooks: WebhookBook


class LoadingModel(Protocol):
    """What reading a state needs of the model it is loaded into (:class:`~fakes.filings.model.FilingsModel`
    is one): the catalogue it was made for, its settings and its epoch."""

    seed: int
    epoch: int
    scale: Scale
    settings: FilingsSettings

    @property
    def catalogue(self) -> Catalogue: ...


PARTS = ("catalogue", "keys", "keys_issued", "demo_keys", "companies", "filings", "versions", "watchlists",
         "merges", "agents", "webhooks")


def company_state(core: CompanyCore) -> dict[str, Any]:
    return {name: (list(value) if isinstance(value, tuple) else value)
            for name, value in ((field, getattr(core, field)) for field in CompanyCore.__slots__)}


def read_state(state: Any, *, model: LoadingModel) -> FilingsState:
    seed, scale_label, catalogue = model.seed, model.scale.label, model.catalogue
    read = StateReader(state, "model").only(PARTS)
    found = read.raw("catalogue")
    if found != {"seed": seed, "scale": scale_label}:
        refuse(read.where("catalogue"), f"is {found!r}; this fake's is seed {seed} scale {scale_label}")
    keys: dict[str, ApiKey] = {}
    for item in read.objects("keys"):
        key = _key(item)
        if key.key in keys:
            refuse(item.where("key"), f"repeats the key {key.key}")
        keys[key.key] = key
    demo = read.object("demo_keys").only(TIERS)
    demo_keys = {}
    for tier in TIERS:
        token = demo.text(tier, max_length=200)
        if token not in keys or keys[token].tier != tier:
            refuse(demo.where(tier), f"must name a {tier} key of model.keys")
        demo_keys[tier] = token
    companies: dict[int, CompanyCore] = {}
    for index, item in enumerate(read.objects("companies")):
        core = _company(item, USER_ID_BASE + index + 1)
        companies[core.id] = core
    filings: dict[int, FilingRecord] = {}
    for index, item in enumerate(read.objects("filings")):
        record = _filing(item, USER_ID_BASE + index + 1)
        if record.company_id not in companies and not (record.company_id < USER_ID_BASE
                                                       and catalogue.has_company(record.company_id)):
            refuse(item.where("company_id"), f"names no company ({record.company_id})")
        filings[record.id] = record

    def has_company(company_id: int) -> bool:
        return company_id in companies or (company_id < USER_ID_BASE and catalogue.has_company(company_id))

    def has_filing(filing_id: int) -> bool:
        return filing_id in filings or 1 <= filing_id < USER_ID_BASE

    settings = model.settings
    agent_keys = {token: key.agent for token, key in keys.items() if key.agent is not None}
    webhooks = WebhookBook(seed, model.epoch, settings)
    if read.has("webhooks"):
        webhooks.load(read.object("webhooks"), set(keys), has_filing)
    agents = Agents.read(read.object("agents"), agent_keys) if read.has("agents") else Agents()
    if not read.has("agents") and agent_keys:
        refuse(read.where("agents"), "must hold the accounts of the agent keys")
    return FilingsState(
        keys, read.integer("keys_issued", minimum=len(TIERS), maximum=MAX_COUNT), demo_keys, companies, filings,
        _versions(read, filings) if read.has("versions") else {},
        Watchlists.read(read, "watchlists", settings.watchlist_limit, set(keys), has_company)
        if read.has("watchlists") else Watchlists(settings.watchlist_limit),
        Merges.read(read, "merges", has_company) if read.has("merges") else Merges(), agents, webhooks)


def _versions(read: StateReader, filings: dict[int, FilingRecord]) -> dict[int, list[Version]]:
    found: dict[int, list[Version]] = {}
    for item in read.objects("versions"):
        item.only(("filing", "at_s", "changes"))
        filing_id = item.integer("filing")
        if filing_id not in filings:
            refuse(item.where("filing"), "names no user filing")
        versions = found.setdefault(filing_id, [])
        at_s = item.integer("at_s", minimum=versions[-1].at_s if versions else 0, maximum=MAX_EPOCH_S)
        changes = item.json("changes")
        if not isinstance(changes, dict) or not changes or not all(
                isinstance(change, dict) and set(change) == {"from", "to"} for change in changes.values()):
            refuse(item.where("changes"), "must map each changed field to {from, to}")
        if len(versions) >= MAX_VERSIONS:
            refuse(item.where("filing"), f"has more than {MAX_VERSIONS} re-releases")
        versions.append(Version(at_s, changes))
    return found


def _key(read: StateReader) -> ApiKey:
    read.only(("key", "tier", "quota", "created_ms", "year", "used", "refused_year", "agent"))
    return ApiKey(key=read.text("key", pattern=KEY_PATTERN), tier=read.choice("tier", TIERS),
                  quota=read.integer("quota", minimum=0, maximum=MAX_COUNT, nullable=True),
                  created_ms=read.integer("created_ms", minimum=0, maximum=MAX_EPOCH_S * 1000 + 999),
                  year=read.integer("year", minimum=1970, maximum=9999),
                  used=read.integer("used", minimum=0, maximum=MAX_COUNT),
                  # client history the rules read; states exported before the rules had none
                  refused_year=(read.integer("refused_year", minimum=1970, maximum=9999, nullable=True)
                                if read.has("refused_year") else None),
                  agent=read.text("agent", max_length=254, nullable=True) if read.has("agent") else None)


def _date(read: StateReader, name: str) -> str:
    text = read.text(name, max_length=10)
    try:
        return dt.date.fromisoformat(text).isoformat()
    except ValueError:
        refuse(read.where(name), "must be a date YYYY-MM-DD")


def _company(read: StateReader, expected_id: int) -> CompanyCore:
    read.only(field.name for field in dataclasses.fields(cast(Any, CompanyCore)))
    company_id = read.integer("id")
    if company_id != expected_id:  # the next POST /_fake/companies numbers from the count
        refuse(read.where("id"), f"must be {expected_id} (user companies are numbered from {USER_ID_BASE + 1})")
    market_index = read.integer("market_index", minimum=0, maximum=len(MARKETS) - 1)
    country = read.text("country_code", max_length=2)
    if country != MARKETS[market_index].code:
        refuse(read.where("country_code"), f"must be {MARKETS[market_index].code}, the code of its market_index")
    isins = read.array("isins", max_items=100)
    if not isins:
        refuse(read.where("isins"), "must list at least one ISIN")
    for index, isin in enumerate(isins):
        where = read.where(f"isins[{index}]")
        if not isinstance(check_text(isin, where, max_length=12), str) or not is_valid_isin(isin):
            refuse(where, "is not a valid ISIN")
    lei = read.text("lei", max_length=20)
    if not is_valid_lei(lei):
        refuse(read.where("lei"), "is not a valid LEI")
    return CompanyCore(
        id=company_id, name=read.text("name", min_length=1, max_length=500),
        ticker=read.text("ticker", min_length=1, max_length=20), country_code=country, isins=tuple(isins),
        lei=lei, class_index=read.integer("class_index", minimum=0, maximum=len(CLASSES) - 1),
        tagline=read.text("tagline", min_length=1, max_length=500),
        city=read.text("city", min_length=1, max_length=100), date_public=_date(read, "date_public"),
        date_ipo=_date(read, "date_ipo"), year_founded=_date(read, "year_founded"),
        market_index=market_index, size=read.integer("size", minimum=0, maximum=2),
    )


def _filing(read: StateReader, expected_id: int) -> FilingRecord:
    read.only(field.name for field in dataclasses.fields(cast(Any, FilingRecord)))
    filing_id = read.integer("id")
    if filing_id != expected_id:
        refuse(read.where("id"), f"must be {expected_id} (user filings are numbered from {USER_ID_BASE + 1})")
    period = read.value.get("fiscal_period")
    if period is not None and period not in FISCAL_PERIODS:
        refuse(read.where("fiscal_period"), f"must be one of {', '.join(FISCAL_PERIODS)} or null")
    return FilingRecord(
        id=filing_id, company_id=read.integer("company_id", minimum=1),
        type_index=read.integer("type_index", minimum=0, maximum=len(TYPES) - 1),
        language_index=read.integer("language_index", minimum=0, maximum=len(LANGUAGES) - 1),
        market_index=read.integer("market_index", minimum=0, maximum=len(MARKETS) - 1),
        release_s=read.integer("release_s", minimum=0, maximum=MAX_EPOCH_S),
        added_s=read.integer("added_s", minimum=0, maximum=MAX_EPOCH_S),
        title=read.text("title", min_length=1, max_length=4000),
        fiscal_year=read.integer("fiscal_year", minimum=1, maximum=9999, nullable=True),
        fiscal_period=read.text("fiscal_period", max_length=2, nullable=True),
        file_size=read.integer("file_size", minimum=0, maximum=2**53),
        failed=read.boolean("failed"), confidence=read.number("confidence", minimum=0, maximum=1),
        source_filing_id=read.text("source_filing_id", max_length=200),
        markdown=read.text("markdown", max_length=MAX_MARKDOWN, nullable=True),
        updated_s=(read.integer("updated_s", minimum=0, maximum=MAX_EPOCH_S, nullable=True)
                   if read.has("updated_s") else None),
    )
