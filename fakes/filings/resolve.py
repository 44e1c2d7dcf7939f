"""``POST /companies/resolve/``: a batch of a client's identifiers matched to companies.

Resolution order ISIN, LEI, CIK, ticker, venue ticker, name; every identifier given is checked.
Two identifiers naming different companies: ``ambiguous`` + ``identifier_conflict``. A ticker
held by several companies: the row's name picks one (``matched`` + ``multiple_tickers``, the others
as candidates) or it is ``ambiguous`` + ``multiple_tickers``. A ticker with a market suffix
(``WDI.DE``) is a venue ticker (``security_listing``): checked against the row's name
(``name_disagrees``), or ``matched`` + ``security_listing_unverified`` without one. A name alone is
at best ``ambiguous`` with candidates; past 50 name lookups a batch's name-only rows are
``not_covered`` + ``name_tier_skipped``. No company here has a CIK (they are European issuers).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakes.kernel.errors import ServiceError

from .catalogue.companies import CompanyCore
from .catalogue.directory import CompanyFilter, directory_for, normalize_ticker
from .catalogue.markets import MARKET_INDEX

if TYPE_CHECKING:
    from .model import FilingsModel

MAX_ROWS = 500
NAME_LOOKUPS = 50
MAX_CANDIDATES = 10
FIELDS = {"ref": 200, "isin": 12, "lei": 20, "cik": 13, "ticker": 32, "name": 250}
IDENTIFIERS = ("isin", "lei", "cik", "ticker", "name")
LEGAL_WORDS = frozenset({"ag", "se", "sa", "plc", "nv", "n.v.", "ab", "asa", "oyj", "spa", "s.p.a.", "s.a.", "a/s",
                         "as", "inc", "ltd", "limited", "group", "holding", "(publ)", "kgaa", "d.d.", "a.s.",
                         "ad", "a.d.", "nyrt.", "hf.", "p/f", "pjsc", "sh.a.", "p.l.c.", "aktiengesellschaft"})


def _bad(message: str) -> ServiceError:
    return ServiceError(400, message, code="invalid_body")


def read_rows(body: dict[str, Any]) -> list[dict[str, str]]:
    rows = body.get("rows")
    if not isinstance(rows, list) or not 1 <= len(rows) <= MAX_ROWS:
        raise _bad(f"rows: Send 1 to {MAX_ROWS} rows.")
    found = []
    refs: set[str] = set()
    for index, row in enumerate(rows):
        if not isinstance(row, dict):
            raise _bad(f"rows[{index}]: Expected an object.")
        clean = {}
        for name, limit in FIELDS.items():
            value = row.get(name)
            if value is None:
                continue
            if not isinstance(value, str):
                raise _bad(f"rows[{index}].{name}: Not a valid string.")
            if len(value) > limit:
                raise _bad(f"rows[{index}].{name}: Ensure this field has no more than {limit} characters.")
            clean[name] = value
        if "ref" in clean:
            if clean["ref"] in refs:
                raise _bad(f"rows[{index}].ref: Duplicate ref {clean['ref']!r}; refs must be unique in a batch.")
            refs.add(clean["ref"])
        found.append(clean)
    return found


def match_json(core: CompanyCore) -> dict[str, Any]:
    return {"id": core.id, "name": core.name, "ticker": core.ticker, "isins": list(core.isins[:1]), "lei": core.lei,
            "country_code": core.country_code, "listing_status": "LISTED"}


def _normalized(name: str) -> str:
    words = [word for word in name.lower().replace(",", " ").split() if word not in LEGAL_WORDS]
    return " ".join(words)


def names_agree(given: str, core: CompanyCore) -> bool:
    mine, theirs = _normalized(given), _normalized(core.name)
    return bool(mine) and (mine in theirs or theirs in mine)


class Resolver:
    def __init__(self, model: FilingsModel) -> None:
        self.model = model
        self.directory = directory_for(model.catalogue)
        self.name_lookups = 0

    def _cores(self, ids: set[int]) -> list[CompanyCore]:
        found = [core for company_id in sorted(ids) if (core := self.model.core(company_id)) is not None
                 and company_id not in self.model.merges.shells]
        return found

    def by_isin(self, isin: str) -> set[int]:
        owner = self.directory.isin_owner(isin)
        found = {owner[0]} if owner is not None else set()
        return found | {c.id for c in self.model.companies.values() if isin.strip().upper() in c.isins}

    def by_lei(self, lei: str) -> set[int]:
        flt = CompanyFilter(lei=lei.strip())
        return set(self.directory.candidates(flt)) | {c.id for c in self.model.companies.values() if flt.matches(c)}

    def by_ticker(self, ticker: str) -> tuple[set[int], bool]:
        """Companies holding the ticker, and whether it named a venue (a ``.XX`` market suffix)."""
        stem, _, suffix = ticker.strip().rpartition(".")
        venue = bool(stem) and suffix.upper() in MARKET_INDEX
        wanted = normalize_ticker(stem if venue else ticker)
        ids = set(self.directory.tickers.get(wanted, ())) | {
            c.id for c in self.model.companies.values() if normalize_ticker(c.ticker) == wanted}
        if venue:
            ids = {i for i in ids if (core := self.model.core(i)) is not None and core.country_code == suffix.upper()}
        return ids, venue

    def by_name(self, name: str) -> list[CompanyCore]:
        terms = tuple(dict.fromkeys(_normalized(name).split()))
        if not terms:
            return []
        flt = CompanyFilter(search=terms)
        ids = set(self.directory.candidates(flt)[:MAX_CANDIDATES]) | {
            c.id for c in self.model.companies.values() if flt.matches(c)}
        return self._cores(ids)[:MAX_CANDIDATES]

    def row(self, row: dict[str, str], name_only_rows_left: bool) -> dict[str, Any]:
        given = {name: row[name] for name in IDENTIFIERS if row.get(name, "").strip()}
        result: dict[str, Any] = {"ref": row.get("ref"), "input": given, "status": "not_covered",
                                  "resolved_via": None, "company": None, "candidates": [], "warnings": []}
        if not given:
            result["warnings"].append("no_identifiers")
            return result
        hits: list[tuple[str, set[int]]] = []
        if "isin" in given:
            hits.append(("isin", self.by_isin(given["isin"])))
        if "lei" in given:
            hits.append(("lei", self.by_lei(given["lei"])))
        if "cik" in given:
            hits.append(("cik", set()))
        venue = False
        if "ticker" in given:
            ids, venue = self.by_ticker(given["ticker"])
            hits.append(("security_listing" if venue else "ticker", ids))
        exact = [(via, ids) for via, ids in hits if ids and via in ("isin", "lei", "cik")]
        pinned = set().union(*(ids for _via, ids in exact)) if exact else set()
        if len(pinned) > 1:  # two identifiers, two companies
            return {**result, "status": "ambiguous", "candidates": [match_json(c) for c in self._cores(pinned)],
                    "warnings": ["identifier_conflict"]}
        if pinned:
            return {**result, "status": "matched", "resolved_via": exact[0][0],
                    "company": match_json(self._cores(pinned)[0])}
        ticker_hits = [ids for via, ids in hits if via in ("ticker", "security_listing") and ids]
        if ticker_hits:
            return {**result, **self._ticker_result(ticker_hits[0], venue, given.get("name"))}
        if "name" in given and set(given) == {"name"}:
            if not name_only_rows_left:
                return {**result, "warnings": ["name_tier_skipped"]}
            self.name_lookups += 1
            candidates = self.by_name(given["name"])
            if candidates:
                return {**result, "status": "ambiguous", "candidates": [match_json(c) for c in candidates]}
        return result

    def _ticker_result(self, ids: set[int], venue: bool, name: str | None) -> dict[str, Any]:
        holders = self._cores(ids)
        if not holders:
            return {}
        via = "security_listing" if venue else "ticker"
        if len(holders) > 1:
            agreeing = [c for c in holders if name is not None and names_agree(name, c)]
            if len(agreeing) == 1:
                others = [match_json(c) for c in holders if c is not agreeing[0]][:MAX_CANDIDATES]
                return {"status": "matched", "resolved_via": via, "company": match_json(agreeing[0]),
                        "candidates": others, "warnings": ["multiple_tickers"]}
            warnings = ["multiple_tickers"] + (["name_disagrees"] if name is not None and not agreeing else [])
            return {"status": "ambiguous", "candidates": [match_json(c) for c in holders][:MAX_CANDIDATES],
                    "warnings": warnings}
        core = holders[0]
        if venue and name is None:
            return {"status": "matched", "resolved_via": via, "company": match_json(core),
                    "warnings": ["security_listing_unverified"]}
        if name is not None and not names_agree(name, core):
            return {"status": "ambiguous", "candidates": [match_json(core)], "warnings": ["name_disagrees"]}
        return {"status": "matched", "resolved_via": via, "company": match_json(core)}


def resolve(model: FilingsModel, body: dict[str, Any]) -> dict[str, Any]:
    rows = read_rows(body)
    resolver = Resolver(model)
    results = [resolver.row(row, resolver.name_lookups < NAME_LOOKUPS) for row in rows]
    summary = {"matched": 0, "matched_via_alias": 0, "ambiguous": 0, "not_covered": 0}
    for result in results:
        summary[result["status"]] += 1
    return {"summary": summary, "results": results}
