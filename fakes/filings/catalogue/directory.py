"""Filtering and ordering companies: ~33,500 generated ones plus the users' own.

Company lists are small enough to filter by scanning a few arrays; what is expensive at full
scale (every name, every ticker, a sort by name) is computed once per catalogue, lazily, and
shared: it is derived data like the catalogue itself.
"""

from __future__ import annotations

import bisect
import functools
import heapq
import itertools
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from .companies import (
    CompanyCore,
    company_founded,
    company_ipo_date,
    company_isin_count,
    company_lei,
    company_name,
    company_ticker,
)
from .generator import Catalogue
from .identifiers import decode_isin, decode_lei, make_isin
from .markets import MARKETS

COMPANY_ORDERINGS = ("id", "name", "date_ipo", "year_founded", "country_iso__name")


def normalize_ticker(ticker: str) -> str:
    """Tickers compare case- and separator-insensitively (``BRK.B`` = ``brk-b`` = ``BRK B``)."""
    return "".join(ch for ch in ticker.upper() if ch.isalnum())


@dataclass(frozen=True, slots=True)
class CompanyFilter:
    """A company list's filters; ``None`` means not filtered on."""

    market_indexes: frozenset[int] | None = None
    class_indexes: frozenset[int] | None = None  # from sector / industry_group / industry / sub_industry
    isin: str | None = None
    lei: str | None = None
    ticker: str | None = None
    search: tuple[str, ...] = ()  # lower-case terms, each must match

    def matches(self, core: CompanyCore) -> bool:
        """The brute-force definition the generated-company fast paths must agree with."""
        return ((self.market_indexes is None or core.market_index in self.market_indexes)
                and (self.class_indexes is None or core.class_index in self.class_indexes)
                and (self.isin is None or self.isin.upper() in core.isins)
                and (self.lei is None or self.lei.upper() == core.lei)
                and (self.ticker is None or normalize_ticker(self.ticker) == normalize_ticker(core.ticker))
                and all(_term_matches(term, core.name.lower(), core) for term in self.search))


def _term_matches(term: str, lowered_name: str, core: CompanyCore) -> bool:
    upper = term.upper()
    return (term in lowered_name or upper == core.lei or upper in core.isins
            or normalize_ticker(term) == normalize_ticker(core.ticker))


class Directory:
    """Lazily built lookups over a catalogue's generated companies."""

    def __init__(self, catalogue: Catalogue) -> None:
        self.catalogue = catalogue
        self.count = catalogue.company_count

    @functools.cached_property
    def by_market(self) -> list[list[int]]:
        found: list[list[int]] = [[] for _ in MARKETS]
        for i, market_index in enumerate(self.catalogue.market):
            found[market_index].append(i + 1)
        return found

    @functools.cached_property
    def names(self) -> list[str]:
        return [company_name(self.catalogue, i) for i in range(1, self.count + 1)]

    @functools.cached_property
    def lowered_names(self) -> list[str]:
        return [name.lower() for name in self.names]

    @functools.cached_property
    def tickers(self) -> dict[str, list[int]]:
        found: dict[str, list[int]] = {}
        for i in range(1, self.count + 1):
            found.setdefault(normalize_ticker(company_ticker(self.catalogue, i)), []).append(i)
        return found

    # -- ISINs: every generated company's, in (company id, share class) order ----------------------
    @functools.cached_property
    def isin_starts(self) -> array[int]:
        """``isin_starts[i]``: ISINs of the companies before company ``i + 1``; the last entry is
        the total (~1.3 a company)."""
        starts = array("q", [0])
        running = 0
        for company_id in range(1, self.count + 1):
            running += company_isin_count(self.catalogue, company_id)
            starts.append(running)
        return starts

    def isin_at(self, position: int) -> tuple[int, int]:
        """(company id, share class) of the ``position``-th generated ISIN."""
        company_index = bisect.bisect_right(self.isin_starts, position) - 1
        return company_index + 1, position - self.isin_starts[company_index]

    @functools.cached_property
    def isin_text(self) -> str:
        """Every generated ISIN in order, one per 13 characters (newline-separated): a substring
        search over them is one ``str.find`` loop."""
        markets = self.catalogue.market
        return "".join(make_isin(MARKETS[markets[company_id - 1]].code, company_id, share) + "\n"
                       for company_id in range(1, self.count + 1)
                       for share in range(self.isin_starts[company_id] - self.isin_starts[company_id - 1]))

    def isin_owner(self, isin: str) -> tuple[int, int] | None:
        """(company id, share class) of a generated company's ISIN, or None."""
        decoded = decode_isin(isin)
        if decoded is None or not 1 <= decoded[1] <= self.count:
            return None
        country, company_id, share = decoded
        if MARKETS[self.catalogue.market[company_id - 1]].code != country:
            return None
        return (company_id, share) if share < company_isin_count(self.catalogue, company_id) else None

    @functools.lru_cache(maxsize=8)  # noqa: B019 - one directory per catalogue, for the process
    def by_ticker(self) -> tuple[int, ...]:
        """Every generated company id in (ticker, id) order."""
        return tuple(sorted(range(1, self.count + 1), key=lambda cid: (company_ticker(self.catalogue, cid), cid)))

    def sort_key(self, ordering: str, company_id: int) -> tuple[str, int]:
        if ordering == "name":
            return (self.lowered_names[company_id - 1], company_id)
        if ordering == "date_ipo":
            return (company_ipo_date(self.catalogue, company_id), company_id)
        if ordering == "year_founded":
            return (company_founded(self.catalogue, company_id), company_id)
        return (MARKETS[self.catalogue.market[company_id - 1]].name, company_id)

    @functools.lru_cache(maxsize=8)  # noqa: B019 - one directory per catalogue, for the process
    def order(self, ordering: str) -> tuple[int, ...]:
        """Every generated company id in ``ordering`` (ascending, ties by id)."""
        return tuple(sorted(range(1, self.count + 1), key=lambda cid: self.sort_key(ordering, cid)))

    # -- filtering -------------------------------------------------------------------------------
    def candidates(self, flt: CompanyFilter) -> Sequence[int]:
        """Generated company ids matching ``flt``, ascending."""
        catalogue = self.catalogue
        ids: Sequence[int] = range(1, self.count + 1)
        exact = self._exact_ids(flt)
        if exact is not None:
            ids = sorted(exact)
        if flt.market_indexes is not None:
            if exact is None:
                ids = sorted(itertools.chain.from_iterable(self.by_market[m] for m in flt.market_indexes))
            else:
                ids = [i for i in ids if catalogue.market[i - 1] in flt.market_indexes]
        if flt.class_indexes is not None:
            ids = [i for i in ids if catalogue.isic[i - 1] in flt.class_indexes]
        # one substring pass per term (a few ms at full scale), longest (most selective) first; the
        # ticker, ISIN and LEI hits come from lookups instead of per-company work
        lowered = self.lowered_names
        for term in sorted(flt.search, key=len, reverse=True):
            by_identifier = self._identifier_hits(term)
            if by_identifier:
                ids = [i for i in ids if term in lowered[i - 1] or i in by_identifier]
            else:
                ids = [i for i in ids if term in lowered[i - 1]]
        return ids

    def _exact_ids(self, flt: CompanyFilter) -> set[int] | None:
        """Ids named by ISIN, LEI or ticker (None if none of them is given)."""
        found: set[int] | None = None
        if flt.isin is not None:
            owner = self.isin_owner(flt.isin)
            found = {owner[0]} if owner is not None else set()
        if flt.lei is not None:
            company_id = decode_lei(flt.lei)
            ok = (company_id is not None and 1 <= company_id <= self.count
                  and company_lei(self.catalogue, company_id) == flt.lei.strip().upper())
            match = {company_id} if ok and company_id is not None else set()
            found = match if found is None else found & match
        if flt.ticker is not None:
            match = set(self.tickers.get(normalize_ticker(flt.ticker), ()))
            found = match if found is None else found & match
        return found

    def _identifier_hits(self, term: str) -> frozenset[int]:
        """Generated companies a search term names by ticker, ISIN or LEI (what _search_hit checks
        besides the name), found by lookups instead of a pass over every company."""
        found = set(self.tickers.get(normalize_ticker(term), ()))
        upper = term.upper()
        if len(upper) == 12:
            decoded = decode_isin(upper)
            if decoded is not None and 1 <= decoded[1] <= self.count and self._search_hit(term, decoded[1]):
                found.add(decoded[1])
        if len(upper) == 20:
            company_id = decode_lei(upper)
            if company_id is not None and 1 <= company_id <= self.count and self._search_hit(term, company_id):
                found.add(company_id)
        return frozenset(found)

    def _search_hit(self, term: str, company_id: int) -> bool:
        if term in self.lowered_names[company_id - 1]:
            return True
        upper = term.upper()
        if len(upper) == 12:
            decoded = decode_isin(upper)
            if decoded is not None and decoded[1] == company_id and decoded[2] < company_isin_count(
                    self.catalogue, company_id) and MARKETS[self.catalogue.market[company_id - 1]].code == decoded[0]:
                return True
        if len(upper) == 20 and company_lei(self.catalogue, company_id) == upper:
            return True
        return normalize_ticker(term) == normalize_ticker(company_ticker(self.catalogue, company_id))

    # -- ordering ------------------------------------------------------------------------------
    def ordered(self, flt: CompanyFilter, users: list[CompanyCore], ordering: str,
                descending: bool) -> tuple[int, Iterator[int | CompanyCore]]:
        """(count, iterator over the matches in order): generated ids and user companies."""
        generated = self.candidates(flt)
        total = len(generated) + len(users)
        if ordering == "id":  # user company ids are above every generated id
            by_id = sorted(users, key=lambda c: c.id)
            if descending:
                return total, itertools.chain(reversed(by_id), reversed(generated))
            return total, itertools.chain(generated, by_id)
        everything = isinstance(generated, range) and len(generated) == self.count
        keyed: Sequence[int] = (self.order(ordering) if everything
                                else sorted(generated, key=lambda cid: self.sort_key(ordering, cid)))
        user_keys = sorted(users, key=lambda c: user_sort_key(ordering, c))

        def key(item: int | CompanyCore) -> tuple[str, int]:
            return user_sort_key(ordering, item) if isinstance(item, CompanyCore) else self.sort_key(ordering, item)

        streams: tuple[Iterable[int | CompanyCore], Iterable[int | CompanyCore]] = (
            (reversed(keyed), reversed(user_keys)) if descending else (keyed, user_keys))
        return total, heapq.merge(*streams, key=key, reverse=descending)


def user_sort_key(ordering: str, core: CompanyCore) -> tuple[str, int]:
    if ordering == "name":
        return (core.name.lower(), core.id)
    if ordering == "date_ipo":
        return (core.date_ipo, core.id)
    if ordering == "year_founded":
        return (core.year_founded, core.id)
    if ordering == "country_iso__name":
        return (MARKETS[core.market_index].name, core.id)
    return ("", core.id)


@functools.lru_cache(maxsize=8)
def directory_for(catalogue: Catalogue) -> Directory:
    return Directory(catalogue)
