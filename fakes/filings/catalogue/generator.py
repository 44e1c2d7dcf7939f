"""The generated catalogue: ~33,500 companies and ~14.8 million filings, computed, not stored.

Design (the hard part: every query at full scale without a pass over the filings)
---------------------------------------------------------------------------------
*Companies* are a few small arrays built once per (seed, scale): market, size class, ISIC class,
main filing language and whether the company also files English copies (a byte each, ~170 KB at
full scale). Everything else about a company (name, ISIN, LEI, ...) is a pure function of
(seed, id) computed when shown.

*Filings* are positions on one infinite line. Filing ``i`` (id ``i + 1``) is released at a time
strictly increasing in ``i`` (:mod:`~fakes.filings.catalogue.timeline`), so time order is index order and
a release-date range is an index range in O(1). The line is cut into *rounds* of ``L`` positions
(``L`` = filings the whole catalogue publishes in a year, about 880,000), and every round is
shared out the same way:

* each company publishes ``w`` filings of a type a year (by size class: an annual report, three
  interim reports, a dozen press releases, ...), in its main language and, for the companies
  that do, an English copy;
* companies with the same (type, language, market, ``w``) form a *group* of ``n`` companies and
  ``n*w`` positions per round; the group's ``p``-th position belongs to its company
  ``π(p mod n)`` (an affine permutation), which therefore publishes every ``n`` positions of
  the group - evenly through the year;
* the groups are leaves of a :class:`~fakes.filings.catalogue.splittree.SplitTree` nested type >
  language > market > group; each split spreads its two parts evenly (a Beatty sequence), so
  routing a round position to its group, and a group position back to the round, is O(depth)
  closed-form arithmetic with three integers per split.

Hence, with no table of filings anywhere:

* filing ``i`` -> round ``i // L``, position ``i % L`` -> group and rank (``SplitTree.locate``)
  -> company and its ordinal; plus its release time: a pure function of ``i``;
* filings of a type, a (type, language) or a (type, language, market) are a node of the tree:
  their count below any index and the index of their ``k``-th element are O(depth);
* a company's filings are the same handful of round positions every round (its *pattern*,
  ~25-150 positions, cached per company): count and select are a bisect;
* combined filters are unions of such parts intersected with an index range
  (:mod:`~fakes.filings.query`).

The catalogue is immutable derived data, cached per (seed, scale) at module level and shared by
every fake of the process; what clients change lives on the model.
"""

from __future__ import annotations

import bisect
import functools
import gc
import random
from array import array
from dataclasses import dataclass
from typing import Any

from fakes.kernel.clock import DEFAULT_START_MS

from .arith import coprime_multiplier, pick_weighted, salted, stable_hash
from .filing_types import SIZE_PERCENT, TYPES
from .isic import CLASSES
from .markets import ENGLISH, LANGUAGE_BY_CODE, LANGUAGES, MARKETS
from .splittree import Nested, Node, SplitTree
from .timeline import BUSINESS_SECONDS_PER_YEAR, Timeline, business_at_or_after

#: The instant at which the catalogue holds exactly its documented number of filings (the manual
#: clock's default start); later generated filings are released as the clock passes them.
ANCHOR_S = DEFAULT_START_MS // 1000

FULL_COMPANIES = 33_500
FULL_FILINGS = 14_800_000
SMALL_COMPANIES = 220
SMALL_FILINGS = 3_000

GROUP_SALT = 0x6A0B
COMPANY_SALT = 0xC0A1
RECORD_SALT = 0xF11E
NAME_SALT = 0x4E41


class ScaleError(ValueError):
    """A catalogue scale that is not "full", "small" or a number of companies >= 44."""


@dataclass(frozen=True, slots=True)
class Scale:
    label: str
    companies: int
    filings: int  # generated filings released by ANCHOR_S

    @classmethod
    def parse(cls, value: str | int) -> Scale:
        text = str(value).strip().lower()
        if text == "full":
            return cls("full", FULL_COMPANIES, FULL_FILINGS)
        if text == "small":
            return cls("small", SMALL_COMPANIES, SMALL_FILINGS)
        try:
            companies = int(text)
        except ValueError:
            raise ScaleError(f"scale must be 'full', 'small' or a number of companies, not {value!r}") from None
        if companies < len(MARKETS):
            raise ScaleError(f"a catalogue needs at least {len(MARKETS)} companies (one per market)")
        return cls(str(companies), companies, round(companies * FULL_FILINGS / FULL_COMPANIES))


@dataclass(frozen=True, slots=True)
class Group:
    """Companies publishing one type in one language in one market at one rate ``weight``."""

    key: tuple[int, int, int, int]  # (type index, language index, market index, weight)
    members: array[int]  # company ids, ascending
    weight: int
    multiplier: int  # π(k) = (multiplier*k + offset) mod n
    offset: int
    inverse: int

    @property
    def n(self) -> int:
        return len(self.members)

    def company_at(self, rank: int) -> tuple[int, int]:
        """(company id, ordinal of the company's filing in this group this round) at ``rank``."""
        n = len(self.members)
        ordinal, slot = divmod(rank, n)
        return self.members[(self.inverse * (slot - self.offset)) % n], ordinal

    def ranks_of(self, company_id: int) -> list[int]:
        """The group ranks of a member's filings within one round (evenly spaced, ascending)."""
        n = len(self.members)
        k = bisect.bisect_left(self.members, company_id)
        slot = (self.multiplier * k + self.offset) % n
        return [ordinal * n + slot for ordinal in range(self.weight)]


@dataclass(slots=True)
class Located:
    """Where generated filing ``index`` sits: everything its record is computed from."""

    index: int
    type_index: int
    language_index: int
    market_index: int
    company_id: int
    ordinal: int  # 0..weight-1: which of the company's filings of this type this round
    weight: int


class Catalogue:
    """Companies and filings of one (seed, scale); immutable, shared between fakes."""

    def __init__(self, seed: int, scale: Scale) -> None:
        self.seed = seed
        self.scale = scale
        self.company_count = scale.companies
        self._build_companies()
        self._build_groups()
        self.round_size = self.tree.root.size
        gap = max(1, BUSINESS_SECONDS_PER_YEAR // self.round_size)
        start = business_at_or_after(ANCHOR_S) - scale.filings * gap
        self.timeline = Timeline(start, gap, seed)
        self.record_hash_base = salted(seed, RECORD_SALT)
        self.company_hash_base = salted(seed, NAME_SALT)
        # rendered-from values, filled on demand (records.generated_record, companies.company_core)
        self.record_cache: dict[int, Any] = {}
        self.company_cache: dict[int, Any] = {}

    # -- companies -----------------------------------------------------------------------------
    def _build_companies(self) -> None:
        rng = random.Random(stable_hash(self.seed, COMPANY_SALT, self.company_count))
        markets: list[int] = []
        for index, count in enumerate(allocate(self.company_count, [m.share for m in MARKETS],
                                               minimum=2 if self.company_count >= 2 * len(MARKETS) else 1)):
            markets.extend([index] * count)
        rng.shuffle(markets)
        class_weights = [c.weight for c in CLASSES]
        self.market = array("B", markets)
        self.size = array("B")
        self.isic = array("B")
        self.main_language = array("B")
        self.english_copies = array("B")
        for market_index in markets:
            market = MARKETS[market_index]
            self.size.append(pick_weighted(rng.getrandbits(32), SIZE_PERCENT))
            self.isic.append(pick_weighted(rng.getrandbits(32), class_weights))
            code = market.languages[pick_weighted(rng.getrandbits(32), [w for _, w in market.languages])][0]
            language = LANGUAGES.index(LANGUAGE_BY_CODE[code])
            self.main_language.append(language)
            self.english_copies.append(int(language != ENGLISH and rng.randrange(100) < market.english_copies))

    def has_company(self, company_id: int) -> bool:
        return 1 <= company_id <= self.company_count

    def publications(self, company_id: int) -> list[tuple[int, int, int]]:
        """(type index, language index, weight) of everything a company publishes each round."""
        i = company_id - 1
        market = MARKETS[self.market[i]]
        size = self.size[i]
        main = self.main_language[i]
        found = []
        for type_index, filing_type in enumerate(TYPES):
            weight = filing_type.per_year[size]
            if weight == 0 or (filing_type.esef_only and not market.esef):
                continue
            found.append((type_index, main, weight))
            if self.english_copies[i] and filing_type.english_copy:
                found.append((type_index, ENGLISH, weight))
        return found

    # -- groups and the split tree ------------------------------------------------------------
    def _build_groups(self) -> None:
        # Companies with equal (market, size, language, copies) publish alike: group them first
        # so the per-group member lists are built with a few hundred list extensions.
        profiles: dict[tuple[int, int, int, int], list[int]] = {}
        for i in range(self.company_count):
            key = (self.market[i], self.size[i], self.main_language[i], self.english_copies[i])
            profiles.setdefault(key, []).append(i + 1)
        members: dict[tuple[int, int, int, int], list[int]] = {}
        for (market_index, _size, _main, _copies), ids in profiles.items():
            for type_index, language, weight in self.publications(ids[0]):
                members.setdefault((type_index, language, market_index, weight), []).extend(ids)
        self.groups: dict[tuple[int, int, int, int], Group] = {}
        for key, ids in members.items():
            ids.sort()
            n = len(ids)
            h = stable_hash(self.seed, GROUP_SALT, *key)
            multiplier = coprime_multiplier(h, n)
            self.groups[key] = Group(key, array("i", ids), key[3], multiplier, (h >> 32) % n,
                                     pow(multiplier, -1, n) if n > 1 else 0)
        self.tree = SplitTree.build(self.seed, self._levels())
        self.group_of_leaf: dict[int, Group] = {}
        for group in self.groups.values():
            leaf = self.tree.node(("group", *group.key))
            assert leaf is not None
            self.group_of_leaf[leaf.id] = group

    def _levels(self) -> Nested:
        nested: dict[int, dict[int, dict[int, list[tuple[object, int]]]]] = {}
        for key, group in sorted(self.groups.items()):
            type_index, language, market_index, _weight = key
            leaves = nested.setdefault(type_index, {}).setdefault(language, {}).setdefault(market_index, [])
            leaves.append((("group", *key), group.n * group.weight))
        return [
            (("type", t), [
                (("language", t, lang), [
                    (("market", t, lang, m), leaves) for m, leaves in by_market.items()
                ]) for lang, by_market in by_language.items()
            ]) for t, by_language in nested.items()
        ]

    def type_node(self, type_index: int) -> Node | None:
        return self.tree.node(("type", type_index))

    def language_node(self, type_index: int, language: int) -> Node | None:
        return self.tree.node(("language", type_index, language))

    def market_node(self, type_index: int, language: int, market_index: int) -> Node | None:
        return self.tree.node(("market", type_index, language, market_index))

    # -- filings -------------------------------------------------------------------------------
    def locate(self, index: int) -> Located:
        """Which company published generated filing ``index``, of which type and language."""
        node, rank = self.tree.locate(index % self.round_size)
        group = self.group_of_leaf[node.id]
        type_index, language, market_index, weight = group.key
        company_id, ordinal = group.company_at(rank)
        return Located(index, type_index, language, market_index, company_id, ordinal, weight)

    @functools.lru_cache(maxsize=4096)  # noqa: B019 - the catalogue lives as long as the process
    def company_pattern(self, company_id: int) -> tuple[tuple[int, int, int], ...]:
        """(round position, type index, language index) of a company's filings, by position.

        A company publishes at the same round positions every round, so its filings are exactly
        ``{r*L + position}`` for every round ``r`` and every position of this pattern.
        """
        market_index = self.market[company_id - 1]
        found = []
        for type_index, language, weight in self.publications(company_id):
            group = self.groups[(type_index, language, market_index, weight)]
            node = self.tree.node(("group", *group.key))
            assert node is not None
            for rank in group.ranks_of(company_id):
                found.append((self.tree.select(node, rank), type_index, language))
        found.sort()
        return tuple(found)


def allocate(total: int, weights: list[int], *, minimum: int = 0) -> list[int]:
    """``total`` shared out in proportion to ``weights`` (largest remainder), each >= ``minimum``."""
    base = [minimum] * len(weights)
    rest = total - minimum * len(weights)
    if rest < 0:
        raise ScaleError(f"{total} cannot give each of {len(weights)} parts {minimum}")
    whole = sum(weights)
    exact = [rest * w / whole for w in weights]
    shares = [int(x) for x in exact]
    leftover = rest - sum(shares)
    by_remainder = sorted(range(len(weights)), key=lambda i: (-(exact[i] - shares[i]), i))
    for i in by_remainder[:leftover]:
        shares[i] += 1
    return [b + s for b, s in zip(base, shares, strict=True)]


#: catalogues at least this large freeze the collector's view of the process once built
FREEZE_FROM_FILINGS = 1_000_000


@functools.lru_cache(maxsize=8)
def catalogue_for(seed: int, scale_label: str) -> Catalogue:
    """The shared catalogue of (seed, scale), built on first use (~0.3 s at full scale).

    A large one is built where latency matters (a served full-scale fake): once it stands, every
    object of the process so far (imports, the catalogue's trees) moves to the collector's
    permanent generation, so that later full collections scan only what requests create. Those
    objects are still freed by reference counting; only cycles among them would be kept."""
    catalogue = Catalogue(seed, Scale.parse(scale_label))
    if catalogue.scale.filings >= FREEZE_FROM_FILINGS:
        gc.collect()
        gc.freeze()
    return catalogue
