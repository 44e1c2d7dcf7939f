"""What a generated company looks like: a pure function of (seed, id) and the catalogue arrays.

:func:`company_core` computes the handful of values lists and filters need (name, ISINs, LEI,
ticker, ...); :func:`company_full_json` adds the long tail of the real service's Company shape.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any

from .arith import hash_at, stable_hash
from .generator import Catalogue
from .identifiers import make_figi, make_isin, make_lei
from .isic import CLASSES, class_json, division_json, group_json, section_json
from .markets import MARKETS, Market

DETAIL_SALT = 0xDE7A

_PREFIXES = ("Al", "Bal", "Cor", "Del", "Ev", "Fal", "Gra", "Hel", "Ist", "Jor", "Kal", "Lum", "Mar", "Nor",
             "Ost", "Pra", "Quin", "Ros", "Sol", "Tor", "Ul", "Val", "Wes", "Xen", "Yor", "Zel", "Ar", "Bren",
             "Cas", "Dor", "Eri", "Fen", "Gal", "Hav", "Ing", "Kor", "Lin", "Mon", "Nov", "Or", "Pel", "Rhe",
             "Sen", "Tal", "Ver", "Vin", "Ast", "Bor", "Cel", "Dun")
_SUFFIXES = ("a", "ex", "ia", "on", "is", "or", "ium", "ent", "ara", "ica", "ova", "tec", "gen", "ius", "ora",
             "um", "en", "ant", "ix", "ona", "eon", "ide", "ano", "ero", "ys")
_PATTERNS = ("{root} {word}", "{root}", "{root} {word} Group", "{root} Holding", "{root} {word}")
_DESCRIPTORS = ("A leading", "An established", "A fast-growing", "A family-controlled", "An international",
                "A specialised", "A regional")
_LOUS = ("5299", "9695", "8156", "2138", "5493", "7245", "3157", "2594", "4469", "6354")


@dataclass(slots=True)  # not frozen: a frozen dataclass's __init__ is measurably slower
class CompanyCore:
    id: int
    name: str
    ticker: str
    country_code: str
    isins: tuple[str, ...]
    lei: str
    class_index: int
    tagline: str
    city: str
    date_public: str
    date_ipo: str
    year_founded: str
    market_index: int
    size: int  # size class: 0 small, 1 mid, 2 large


def _root(h: int) -> str:
    return _PREFIXES[h % len(_PREFIXES)] + _SUFFIXES[(h >> 8) % len(_SUFFIXES)]


_DAY_ZERO = dt.date(2000, 1, 1).toordinal()


def _date(days_since_2000: int) -> str:
    return dt.date.fromordinal(_DAY_ZERO + days_since_2000).isoformat()


# Each value below is a pure function of (catalogue arrays, id, h) with h = the company's hash;
# the public one-value helpers serve the directory's bulk lookups, company_core computes h once.
def _hash(catalogue: Catalogue, company_id: int) -> int:
    return hash_at(catalogue.company_hash_base, company_id)


def _name(catalogue: Catalogue, company_id: int, h: int) -> str:
    market = MARKETS[catalogue.market[company_id - 1]]
    word = CLASSES[catalogue.isic[company_id - 1]].word
    pattern = _PATTERNS[(h >> 16) % len(_PATTERNS)]
    form = market.legal_forms[(h >> 20) % len(market.legal_forms)][0]
    return f"{pattern.format(root=_root(h), word=word)} {form}"


def _ticker(catalogue: Catalogue, company_id: int, h: int) -> str:
    root = _root(h)
    return (root[:3] + CLASSES[catalogue.isic[company_id - 1]].word[0]).upper() if (h >> 24) % 3 else root[:4].upper()


def _isin_count(h: int) -> int:
    return 1 + ((h >> 28) % 20 >= 15) + ((h >> 28) % 20 >= 19)


def _ipo_date(h: int) -> str:
    days = 3_000 + (h >> 42) % 6_500  # 2008 .. 2025, some twenty or ten years earlier
    return _date(days - 7_300) if (h >> 56) % 3 == 0 else _date(days - 3_650)


def _founded(h: int) -> str:
    return f"{1850 + (h >> 48) % 150}-01-01"


def company_name(catalogue: Catalogue, company_id: int) -> str:
    """A generated company's name (cheap: the listing's search and name ordering use it)."""
    return _name(catalogue, company_id, _hash(catalogue, company_id))


def company_ticker(catalogue: Catalogue, company_id: int) -> str:
    return _ticker(catalogue, company_id, _hash(catalogue, company_id))


def company_isin_count(catalogue: Catalogue, company_id: int) -> int:
    return _isin_count(_hash(catalogue, company_id))


def company_ipo_date(catalogue: Catalogue, company_id: int) -> str:
    return _ipo_date(_hash(catalogue, company_id))


def company_founded(catalogue: Catalogue, company_id: int) -> str:
    return _founded(_hash(catalogue, company_id))


def company_lei(catalogue: Catalogue, company_id: int) -> str:
    market_index = catalogue.market[company_id - 1]
    return make_lei(_LOUS[market_index % len(_LOUS)], company_id)


_core_values = attrgetter(*(f.name for f in fields(CompanyCore)))  # a core as a plain tuple


def company_core(catalogue: Catalogue, company_id: int) -> CompanyCore:
    """A generated company's core values, kept per catalogue as a plain tuple (every company fits;
    untracked by the collector, see :func:`~fakes.filings.catalogue.records.generated_record`)."""
    found = catalogue.company_cache.get(company_id)
    if found is not None:
        return CompanyCore(*found)
    core = _company_core(catalogue, company_id)
    catalogue.company_cache[company_id] = _core_values(core)
    return core


def _company_core(catalogue: Catalogue, company_id: int) -> CompanyCore:
    i = company_id - 1
    market = MARKETS[catalogue.market[i]]
    cls = CLASSES[catalogue.isic[i]]
    h = _hash(catalogue, company_id)
    descriptor = _DESCRIPTORS[(h >> 38) % len(_DESCRIPTORS)]
    return CompanyCore(
        id=company_id, name=_name(catalogue, company_id, h), ticker=_ticker(catalogue, company_id, h),
        country_code=market.code, isins=tuple(make_isin(market.code, company_id, k) for k in range(_isin_count(h))),
        lei=company_lei(catalogue, company_id), class_index=catalogue.isic[i],
        tagline=f"{descriptor} company in {cls.name[0].lower()}{cls.name[1:]}, based in {market.name}.",
        city=market.cities[(h >> 34) % len(market.cities)],
        date_public=_date(9_100 + (h >> 40) % 400),  # some day in 2024 / early 2025
        date_ipo=_ipo_date(h), year_founded=_founded(h), market_index=catalogue.market[i], size=catalogue.size[i])


def company_minimal_json(core: CompanyCore) -> dict[str, Any]:
    """The CompanyMinimal shape: list items and the ``company`` of every filing."""
    return {"id": core.id, "name": core.name, "tagline": core.tagline, "isins": list(core.isins),
            "lei": core.lei, "sub_industry_code": CLASSES[core.class_index].code, "oics_code": None,
            "country_code": core.country_code, "date_public": core.date_public}


def exch_code(market: Market) -> str:
    """The short exchange code of a market's venue (two letters of its MIC)."""
    return market.mic[1:3]


def _slug(name: str) -> str:
    return "".join(ch for ch in name.split(" ")[0].lower() if ch.isalnum())


def _tld(country: str) -> str:
    return {"GB": "co.uk", "GG": "gg", "JE": "je", "IM": "im"}.get(country, country.lower())


def company_full_json(seed: int, core: CompanyCore) -> dict[str, Any]:
    """The full Company shape of ``GET /companies/{id}/`` (and ``view=full`` lists)."""
    market = MARKETS[core.market_index]
    cls = CLASSES[core.class_index]
    h = stable_hash(seed, DETAIL_SALT, core.id)
    size = core.size
    site = f"https://www.{_slug(core.name)}.{_tld(core.country_code)}"
    street = f"{['Main', 'Harbour', 'Market', 'Station', 'Park', 'Bridge'][h % 6]} Street {1 + (h >> 4) % 180}"
    zip_code = f"{(h >> 12) % 90_000 + 10_000}"
    form, elf = next(((f, e) for f, e in market.legal_forms if core.name.endswith(" " + f)), market.legal_forms[0])
    headcount = [40, 900, 12_000][size] + (h >> 20) % [400, 5_000, 60_000][size]
    return {
        **company_minimal_json(core),
        "description": f"{core.name} is {core.tagline[0].lower()}{core.tagline[1:-1]}, headquartered in "
                       f"{core.city}. Its shares are listed on {market.exchange}.",
        "description_last_updated": f"{core.date_public}T08:00:00Z",
        "isin_count": len(core.isins),
        "primary_isin": core.isins[0],
        "address": street, "city": core.city, "zip_code": zip_code,
        "sector": section_json(cls.section),
        "industry_group": division_json(cls.division),
        "industry": group_json(cls.group),
        "sub_industry": class_json(cls),
        "oics": None,
        "ir_link": f"{site}/investors", "homepage_link": site, "logo": f"{site}/logo.png",
        "date_ipo": core.date_ipo,
        "main_stock_exchange": "",
        "is_listed": True, "listing_status": "LISTED", "delisting_date": None, "delisting_reason": "",
        "social_facebook": None, "social_instagram": None, "social_twitter": None,
        "social_linkedin": f"https://www.linkedin.com/company/{_slug(core.name)}",
        "social_youtube": None, "social_tiktok": None, "social_pinterest": None, "social_xing": None,
        "social_glassdoor": None,
        "year_founded": core.year_founded,
        "corporate_video_id": None,
        "served_area": "Europe" if size else market.name,
        "headcount": headcount,
        "contact_email": f"ir@{site.removeprefix('https://www.')}",
        "ticker": core.ticker,
        "local_company_id": f"{core.country_code}{core.id:08d}",
        "shares_outstanding": headcount * (1_000 + (h >> 30) % 9_000),
        "designated_sponsor": [],
        "listed_stock_exchange": [{"id": core.market_index + 1, "name": market.exchange, "ticker": market.mic,
                                   "website": f"https://www.{market.mic.lower()}.example"}],
        "stock_index": [],
        "listings": [{"mic": market.mic, "ticker": core.ticker, "exchange_name": market.exchange,
                      "exch_code": exch_code(market), "security_type": "Common Stock",
                      "figi": make_figi(core.id)}],
        "legal_status": "ACTIVE",
        "legal_form": {"elf_code": elf, "name": form},
        "jurisdiction": {"code": core.country_code, "name": market.name},
        "legal_address": street, "legal_city": core.city, "legal_zip_code": zip_code,
        "is_merged": False, "merged_into": None, "predecessors": [], "successors": [],
    }
