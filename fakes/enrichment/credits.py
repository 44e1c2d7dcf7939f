"""Accounts, their credits and their rate limits: plain Python, time only from the caller.

Credits are counted in integer tenths (0.1 is the smallest step the service knows), so a balance
never drifts the way a float does; :func:`render` gives the decimal text.

A balance is a list of grants, each with what is left and an expiry: the trial's 10 credits
(expire with the trial), packs (the smallest after 30 days, larger ones after 90; a purchase moves
the expiry of every unexpired pack credit to the new pack's), and a subscription's monthly grant
(lapses at the next one). Charges consume the grant that expires first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from fakes.kernel.clock import MAX_EPOCH_MS
from fakes.kernel.statecheck import StateReader, refuse

from .settings import MAX_DAYS, OPERATION_NAMES, PLANS, SUBSCRIPTIONS, EnrichmentSettings

DAY_MS = 86_400_000
MINUTE_MS = 60_000
MONTH_MS = 30 * DAY_MS
API_KEY_PATTERN = r"[A-Za-z0-9_-]{8,64}"   # the control plane's pattern for a chosen key
GRANT_SOURCES = ("trial", "pack", "subscription", "grant")
BUCKETS = ("paid", "free")
#: instants derived from the clock's (an expiry up to MAX_DAYS on): beyond year 9999, still exact
MAX_DERIVED_MS = MAX_EPOCH_MS + (MAX_DAYS + 31) * DAY_MS
MAX_TENTHS = 10**15
MAX_COUNT = 10**12


def tenths(value: Any) -> int:
    """Credits (int, float, Decimal or text) as integer tenths; ValueError unless a 0.1 step."""
    if isinstance(value, bool):
        raise ValueError("credits must be a number")
    try:
        exact = Decimal(str(value)) * 10
    except InvalidOperation:
        raise ValueError(f"not a number of credits: {value!r}") from None
    if not exact.is_finite() or exact != exact.to_integral_value():
        raise ValueError(f"credits come in steps of 0.1, not {value!r}")
    return int(exact)


def render(amount: int) -> str:
    """Tenths as the decimal text of the header: 30 -> "3", 5 -> "0.5", 0 -> "0"."""
    sign = "-" if amount < 0 else ""
    whole, tenth = divmod(abs(amount), 10)
    return f"{sign}{whole}" if tenth == 0 else f"{sign}{whole}.{tenth}"


def as_number(amount: int) -> int | float:
    """Tenths as a JSON number: an int when whole (10, not 10.0)."""
    return amount // 10 if amount % 10 == 0 else float(Decimal(amount) / 10)


@dataclass
class Grant:
    left: int                 # tenths
    expires_ms: int | None    # None: never
    source: str               # trial | pack | subscription | grant
    granted_ms: int

    def to_state(self) -> dict[str, Any]:
        return {"left": self.left, "expires_ms": self.expires_ms, "source": self.source, "granted_ms": self.granted_ms}

    @classmethod
    def from_state(cls, read: StateReader) -> Grant:
        read.only(("left", "expires_ms", "source", "granted_ms"))
        return cls(read.integer("left", minimum=0, maximum=MAX_TENTHS),
                   read.integer("expires_ms", minimum=0, maximum=MAX_DERIVED_MS, nullable=True),
                   read.choice("source", GRANT_SOURCES), read.integer("granted_ms", minimum=0, maximum=MAX_DERIVED_MS))


@dataclass
class Window:
    """A fixed one-minute window of the virtual clock for one bucket (paid or free)."""

    start_ms: int = -1
    used: int = 0
    refused: bool = False       # a 429 was answered in this window
    announced_zero: bool = False  # an answer of this window said X-RateLimit-Remaining: 0

    def to_state(self) -> dict[str, Any]:
        return {"start_ms": self.start_ms, "used": self.used, "refused": self.refused,
                "announced_zero": self.announced_zero}

    @classmethod
    def from_state(cls, read: StateReader) -> Window:
        read.only(("start_ms", "used", "refused", "announced_zero"))
        return cls(read.integer("start_ms", minimum=-1, maximum=MAX_EPOCH_MS),
                   read.integer("used", minimum=0, maximum=MAX_COUNT), read.boolean("refused"),
                   read.boolean("announced_zero"))


@dataclass
class Account:
    api_key: str
    plan: str
    created_ms: int
    grants: list[Grant] = field(default_factory=list)
    months_granted: int = 0     # subscription grants handed out so far
    spent: int = 0              # tenths, over the account's life
    calls: dict[str, int] = field(default_factory=dict)
    rate_limited: bool = True
    windows: dict[str, Window] = field(default_factory=dict)
    purchases: list[dict[str, Any]] = field(default_factory=list)

    def to_state(self) -> dict[str, Any]:
        return {"api_key": self.api_key, "plan": self.plan, "created_ms": self.created_ms,
                "grants": [g.to_state() for g in self.grants], "months_granted": self.months_granted,
                "spent": self.spent, "calls": dict(self.calls), "rate_limited": self.rate_limited,
                "windows": {bucket: window.to_state() for bucket, window in self.windows.items()},
                "purchases": list(self.purchases)}

    @classmethod
    def from_state(cls, read: StateReader) -> Account:
        read.only(("api_key", "plan", "created_ms", "grants", "months_granted", "spent", "calls", "rate_limited",
                   "windows", "purchases"))
        calls = {}
        for name in read.mapping("calls"):
            if name not in OPERATION_NAMES:
                refuse(read.where(f"calls.{name}"), "is not an operation of the service")
            calls[name] = read.object("calls").integer(name, minimum=0, maximum=MAX_COUNT)
        windows = {}
        if read.has("windows"):  # rate-limit windows (states exported before they were kept have none)
            windows_read = read.object("windows").only(BUCKETS)
            windows = {bucket: Window.from_state(windows_read.object(bucket)) for bucket in windows_read.value}
        return cls(read.text("api_key", pattern=API_KEY_PATTERN), read.choice("plan", PLANS),
                   read.integer("created_ms", minimum=0, maximum=MAX_EPOCH_MS),
                   [Grant.from_state(grant) for grant in read.objects("grants", max_items=100_000)],
                   read.integer("months_granted", minimum=0, maximum=MAX_EPOCH_MS // MONTH_MS + 2),
                   read.integer("spent", minimum=0, maximum=MAX_TENTHS), calls, read.boolean("rate_limited"),
                   windows, [_purchase(item) for item in read.objects("purchases", max_items=100_000)])


def _purchase(read: StateReader) -> dict[str, Any]:
    read.only(("pack_usd", "credits", "at_ms", "expires_ms"))
    read.number("credits", minimum=0, maximum=MAX_TENTHS)
    return {"pack_usd": read.integer("pack_usd", minimum=1, maximum=1_000_000), "credits": read.raw("credits"),
            "at_ms": read.integer("at_ms", minimum=0, maximum=MAX_EPOCH_MS),
            "expires_ms": read.integer("expires_ms", minimum=0, maximum=MAX_DERIVED_MS)}


class CreditError(ValueError):
    """A control-plane request the ledger refuses (unknown plan, bad pack, bad amount)."""


class Ledger:
    """Every account of the fake and the rules that move credits."""

    def __init__(self, settings: EnrichmentSettings) -> None:
        self.settings = settings
        self.accounts: dict[str, Account] = {}

    # -- accounts ----------------------------------------------------------------------------
    def open(self, api_key: str, plan: str, now_ms: int, credits: Any = None, *,
             rate_limited: bool = True) -> Account:
        if plan not in PLANS:
            raise CreditError(f"unknown plan {plan!r}; one of {', '.join(PLANS)}")
        initial = None
        if credits is not None:
            try:
                initial = tenths(credits)
            except ValueError as exc:
                raise CreditError(str(exc)) from None
            if initial < 0 or initial > 10**12:
                raise CreditError("credits must be between 0 and 100,000,000,000")
        account = Account(api_key, plan, now_ms, rate_limited=rate_limited)
        s = self.settings
        if plan == "trial":
            amount = tenths(s.trial_credits) if initial is None else initial
            account.grants.append(Grant(amount, now_ms + s.trial_days * DAY_MS, "trial", now_ms))
        elif plan == "payg":
            if initial:  # credits at creation follow the pack rules: as if bought as a pack of that size
                small = initial <= s.pack_min_usd * s.credits_per_usd * 10
                days = s.small_pack_expiry_days if small else s.large_pack_expiry_days
                account.grants.append(Grant(initial, now_ms + days * DAY_MS, "pack", now_ms))
        else:
            account.months_granted = 1
            amount = tenths(s.subscription_credits.get(plan, 0)) if initial is None else initial
            account.grants.append(Grant(amount, now_ms + MONTH_MS, "subscription", now_ms))
        self.accounts[api_key] = account
        return account

    def trial_expired(self, account: Account, now_ms: int) -> bool:
        return account.plan == "trial" and now_ms >= account.created_ms + self.settings.trial_days * DAY_MS

    def catch_up(self, account: Account, now_ms: int) -> None:
        """Hand out the subscription grants due by ``now_ms`` (lazily: nothing runs on a timer)."""
        if account.plan not in SUBSCRIPTIONS:
            return
        due = (now_ms - account.created_ms) // MONTH_MS + 1
        while account.months_granted < due:
            start = account.created_ms + account.months_granted * MONTH_MS
            account.grants.append(Grant(tenths(self.settings.subscription_credits.get(account.plan, 0)),
                                        start + MONTH_MS, "subscription", start))
            account.months_granted += 1

    def balance(self, account: Account, now_ms: int) -> int:
        self.catch_up(account, now_ms)
        return sum(g.left for g in account.grants if self._valid(g, now_ms))

    @staticmethod
    def _valid(grant: Grant, now_ms: int) -> bool:
        return grant.left > 0 and grant.granted_ms <= now_ms and (grant.expires_ms is None or now_ms < grant.expires_ms)

    def charge(self, account: Account, amount: int, now_ms: int) -> bool:
        """Take ``amount`` tenths, soonest-expiring credits first; False (nothing taken) if short."""
        if amount <= 0:
            return True
        self.catch_up(account, now_ms)
        grants = account.grants
        if len(grants) == 1:  # the usual account: one grant, nothing to order or drop unless it is used up
            grant = grants[0]
            if not self._valid(grant, now_ms) or grant.left < amount:
                return False
            grant.left -= amount
            if not grant.left:
                account.grants = []
            account.spent += amount
            return True
        usable = [g for g in grants if self._valid(g, now_ms)]  # one pass: balance and order
        if sum(g.left for g in usable) < amount:
            return False
        left = amount
        if len(usable) > 1:
            usable.sort(key=_soonest_expiring)
        for grant in usable:
            take = min(grant.left, left)
            grant.left -= take
            left -= take
            if not left:
                break
        account.grants = [g for g in account.grants if g.left > 0 and (g.expires_ms is None or g.expires_ms > now_ms)]
        account.spent += amount
        return True

    def purchase(self, account: Account, pack_usd: Any, now_ms: int) -> dict[str, Any]:
        s = self.settings
        if isinstance(pack_usd, bool) or not isinstance(pack_usd, int) or pack_usd < s.pack_min_usd:
            raise CreditError(f"pack_usd must be a whole number of dollars >= {s.pack_min_usd}")
        if pack_usd > 1_000_000:
            raise CreditError("pack_usd must be at most 1,000,000")
        days = s.small_pack_expiry_days if pack_usd <= s.pack_min_usd else s.large_pack_expiry_days
        expires = now_ms + days * DAY_MS
        for grant in account.grants:  # a purchase extends every unexpired pack credit
            if grant.source in ("pack", "trial") and self._valid(grant, now_ms) and grant.expires_ms is not None:
                grant.expires_ms = max(grant.expires_ms, expires)
        amount = pack_usd * s.credits_per_usd * 10
        account.grants.append(Grant(amount, expires, "pack", now_ms))
        record = {"pack_usd": pack_usd, "credits": as_number(amount), "at_ms": now_ms, "expires_ms": expires}
        account.purchases.append(record)
        if account.plan == "trial":  # buying a pack ends the trial: the account is pay-as-you-go now
            account.plan = "payg"
        return record

    def grant(self, account: Account, amount: int, now_ms: int, expires_ms: int | None) -> None:
        account.grants.append(Grant(amount, expires_ms, "grant", now_ms))

    # -- rate limits ---------------------------------------------------------------------------
    def limit(self, account: Account, bucket: str) -> int:
        return self.settings.paid_per_minute if bucket == "paid" else self.settings.free_per_minute[account.plan]

    def window(self, account: Account, bucket: str, now_ms: int) -> Window:
        start = now_ms - now_ms % MINUTE_MS
        window = account.windows.get(bucket)
        if window is None or window.start_ms != start:
            window = account.windows[bucket] = Window(start)
        return window

    def describe(self, account: Account, now_ms: int) -> dict[str, Any]:
        balance = self.balance(account, now_ms)
        live = [g for g in account.grants if self._valid(g, now_ms)]
        expiries: dict[int | None, int] = {}
        for g in live:
            expiries[g.expires_ms] = expiries.get(g.expires_ms, 0) + g.left
        return {
            "api_key": account.api_key, "plan": account.plan, "created_ms": account.created_ms,
            "balance": as_number(balance), "balance_text": render(balance),
            "trial_expires_ms": (account.created_ms + self.settings.trial_days * DAY_MS
                                 if account.plan == "trial" else None),
            "trial_expired": self.trial_expired(account, now_ms),
            "expiries": [{"credits": as_number(v), "expires_ms": k}
                         for k, v in sorted(expiries.items(), key=lambda kv: math.inf if kv[0] is None else kv[0])],
            "spent": as_number(account.spent), "calls": dict(account.calls),
            "purchases": list(account.purchases), "rate_limited": account.rate_limited,
            "rate_limits": {"paid_per_minute": self.limit(account, "paid"),
                            "free_per_minute": self.limit(account, "free")},
        }


def _soonest_expiring(grant: Grant) -> float:
    return math.inf if grant.expires_ms is None else grant.expires_ms
