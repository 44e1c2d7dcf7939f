"""When generated filings are released: a strictly increasing function of the filing's index.

Filings are laid out in time order: filing ``i`` (id ``i + 1``) is released at business second
``start + i*gap + jitter(i)`` with ``0 <= jitter < gap``, so release time is strictly increasing
in ``i`` and a release-time bound becomes an index bound in O(1).

Business seconds count only trading hours - weekdays 06:00-21:00 UTC - so generated filings are
never released at night or on a weekend; :func:`wall_from_business` maps them to epoch seconds
and its two inverses turn a filter's instant into the first / last business second on either
side of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .arith import hash_at, salted

DAY_OPEN_S = 6 * 3600  # 06:00 UTC
DAY_BUSINESS_S = 15 * 3600  # until 21:00 UTC
WEEK_BUSINESS_S = 5 * DAY_BUSINESS_S
WEEK_S = 7 * 86400
EPOCH_MONDAY_S = 946_857_600  # 2000-01-03T00:00:00Z, a Monday: business second 0 is 06:00 that day
BUSINESS_SECONDS_PER_YEAR = WEEK_BUSINESS_S * 52 + DAY_BUSINESS_S  # 52 weeks and a day

JITTER_SALT = 0x7177


def wall_from_business(bt: int) -> int:
    """Epoch seconds of business second ``bt``."""
    week, rest = divmod(bt, WEEK_BUSINESS_S)
    day, second = divmod(rest, DAY_BUSINESS_S)
    return EPOCH_MONDAY_S + week * WEEK_S + day * 86400 + DAY_OPEN_S + second


def business_at_or_after(wall_s: int) -> int:
    """The first business second whose wall time is >= ``wall_s``."""
    week, rest = divmod(wall_s - EPOCH_MONDAY_S, WEEK_S)
    day, second = divmod(rest, 86400)
    base = week * WEEK_BUSINESS_S
    if day >= 5:
        return base + WEEK_BUSINESS_S
    if second < DAY_OPEN_S:
        return base + day * DAY_BUSINESS_S
    if second >= DAY_OPEN_S + DAY_BUSINESS_S:
        return base + (day + 1) * DAY_BUSINESS_S
    return base + day * DAY_BUSINESS_S + second - DAY_OPEN_S


def business_at_or_before(wall_s: int) -> int:
    """The last business second whose wall time is <= ``wall_s``."""
    after = business_at_or_after(wall_s)
    return after if wall_from_business(after) == wall_s else after - 1


@dataclass(frozen=True, slots=True)
class Timeline:
    """Release times of generated filings: ``start_bt + i*gap + jitter(i)`` business seconds."""

    start_bt: int
    gap: int  # business seconds between consecutive filings (>= 1)
    seed: int
    _jitter_base: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_jitter_base", salted(self.seed, JITTER_SALT))

    def jitter(self, index: int) -> int:
        return hash_at(self._jitter_base, index) % self.gap

    def business_time(self, index: int) -> int:
        return self.start_bt + index * self.gap + self.jitter(index)

    def release_s(self, index: int) -> int:
        """Epoch seconds of filing ``index``'s release."""
        return wall_from_business(self.business_time(index))

    def count_released_by(self, wall_s: int) -> int:
        """How many filings (indexes 0..n-1) are released at or before ``wall_s``."""
        limit = business_at_or_before(wall_s) - self.start_bt
        if limit < 0:
            return 0
        candidate = limit // self.gap
        # every index below the candidate is released by then, every one above it is not
        return candidate + (1 if candidate * self.gap + self.jitter(candidate) <= limit else 0)

    def count_released_before(self, wall_s: int) -> int:
        """How many filings are released strictly before ``wall_s``."""
        return self.count_released_by(wall_s - 1)
