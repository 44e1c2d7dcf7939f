"""The enrichment service's rules: authentication, rate limits, billing and the cache window.

Every request, REST or MCP, goes through :meth:`EnrichmentModel.begin` (key, trial, feeds due,
rate limit) and then one operation; the answer carries its cost in tenths of a credit. Errors are
:class:`ServiceError` with the cost header (and the rate-limit headers) already attached, so the
header is on every response. Plain Python: no HTTP, time only from the fake's clock.
"""

from __future__ import annotations

import math
from typing import Any

from fakes.kernel.clock import Clock
from fakes.kernel.errors import ServiceError
from fakes.kernel.statecheck import StateReader, refuse
from fakes.kernel.verdicts import ClientRule

from . import rules
from .billing import Billing
from .calls import Call
from .credits import MINUTE_MS, Account, CreditError, Ledger
from .data import short_id
from .feeds import Feeds
from .generated import BANDS
from .lookups import Lookups
from .operations import BY_NAME
from .outages import Outages
from .settings import SUBSCRIPTIONS, EnrichmentSettings
from .world import World

MAX_ACCOUNTS = 1_000_000
MAX_KEY_COUNTER = 10**12


class AccountExists(CreditError):
    """A chosen API key that an account holds already (409 on the control plane)."""


class EnrichmentModel:
    def __init__(self, clock: Clock, settings: EnrichmentSettings, seed: int, epoch: int = 0) -> None:
        self.clock = clock
        self.settings = settings
        self.seed = seed
        self.epoch = epoch  # the fake's reset epoch: keys and feeds made after a reset never repeat earlier ones
        self.ledger = Ledger(settings)
        self.world = World(seed, settings.locale, settings.unknown_share,
                           coverage=tuple(float(settings.coverage_weights[band]) for band in BANDS))
        self.feeds = Feeds(seed, settings.locale, self.world, settings.item_rate_per_week, epoch)
        self.billing = Billing(settings, self.ledger)
        self.outages = Outages(seed, settings.transient_failure_share, settings.transient_retry_after_s)
        self.lookups = Lookups(settings, seed, self.world, self.feeds, self.ledger, self.billing, self.outages)
        self.key_counter = 0

    # -- accounts (control plane) --------------------------------------------------------------
    def create_account(self, plan: str = "trial", credits: Any = None, *, rate_limited: bool = True,
                       api_key: str | None = None) -> dict[str, Any]:
        if api_key is not None and api_key in self.ledger.accounts:
            raise AccountExists(f"api key {api_key!r} exists already")
        key = api_key if api_key is not None else self._new_key()
        account = self.ledger.open(key, plan, self.clock.now_ms(), credits, rate_limited=rate_limited)
        return self.ledger.describe(account, self.clock.now_ms())

    def _new_key(self) -> str:
        """The next generated key; one a client chose (or an import brought) is skipped, never reused."""
        while True:
            self.key_counter += 1
            identity = (self.seed, "api-key", self.key_counter) if self.epoch == 0 else \
                (self.seed, self.epoch, "api-key", self.key_counter)
            key = f"ek_{short_id(*identity, size=12)}"
            if key not in self.ledger.accounts:
                return key

    def account_info(self, api_key: str) -> dict[str, Any]:
        account = self._account_or_404(api_key)
        now = self.clock.now_ms()
        self._catch_up(account, now)
        info = self.ledger.describe(account, now)
        info["feeds"] = [f.id for f in self.feeds.owned(api_key)]
        return info

    def purchase(self, api_key: str, pack_usd: Any) -> dict[str, Any]:
        account = self._account_or_404(api_key)
        now = self.clock.now_ms()
        self._catch_up(account, now)
        record = self.ledger.purchase(account, pack_usd, now)
        self.feeds.resume(api_key, now)
        return {**record, "account": self.ledger.describe(account, now)}

    def _account_or_404(self, api_key: str) -> Account:
        account = self.ledger.accounts.get(api_key)
        if account is None:
            raise ServiceError(404, f"no account with api key {api_key!r}", code="not_found")
        return account

    # -- the request pipeline ------------------------------------------------------------------
    def begin(self, op_name: str, api_key: str | None, account: Account | None = None,
              flags: list[tuple[ClientRule, str]] | None = None) -> Call:
        """Key (401), trial (403), feeds due, rate limit (429); the call then counts.

        ``flags`` collects the client rules the request breaks, also when it is refused."""
        op = BY_NAME[op_name]
        now = self.clock.now_ms()
        call = Call(op, None, now, {self.settings.cost_header: "0"}, flags if flags is not None else [])
        if account is None:
            account = self.ledger.accounts.get(api_key) if api_key else None
            if account is None:
                raise self.error(call, 401, "Invalid API Key. Pass it as Authorization: Bearer <API_KEY>."
                                 if api_key else "No API key. Pass it as Authorization: Bearer <API_KEY>.")
        call.account = account
        if account.plan == "trial" and self.ledger.trial_expired(account, now):
            raise self.error(call, 403, f"Your {self.settings.trial_days}-day trial has ended; buy a credit pack "
                                        "or subscribe to keep using this key.")
        if account.plan in SUBSCRIPTIONS or account.api_key in self.feeds.by_owner:  # else nothing is due
            self._catch_up(account, now)
        if account.rate_limited:
            self._rate_limit(call, account, now)
        account.calls[op.name] = account.calls.get(op.name, 0) + 1
        return call

    def _catch_up(self, account: Account, now: int) -> None:
        self.ledger.catch_up(account, now)
        if account.api_key in self.feeds.by_owner:
            self.feeds.catch_up(account.api_key, now, lambda amount, at: self.ledger.charge(account, amount, at))

    def _rate_limit(self, call: Call, account: Account, now: int) -> None:
        bucket = call.op.bucket
        limit = self.ledger.limit(account, bucket)
        window = self.ledger.window(account, bucket, now)
        reset_ms = window.start_ms + MINUTE_MS
        call.headers["X-RateLimit-Limit"] = str(limit)
        call.headers["X-RateLimit-Reset"] = str(reset_ms // 1000)
        if window.used >= limit:
            if window.refused:
                call.flags.append((rules.RETRY_BEFORE_RETRY_AFTER,
                                   f"{bucket} bucket called again {(reset_ms - now) / 1000:g} s before Retry-After "
                                   "ran out"))
            elif window.announced_zero:
                call.flags.append((rules.IGNORED_RATE_LIMIT_HEADERS,
                                   f"X-RateLimit-Remaining was 0 for the {bucket} bucket until {reset_ms // 1000}"))
            window.refused = True
            call.headers["X-RateLimit-Remaining"] = "0"
            call.headers["Retry-After"] = str(max(1, math.ceil((reset_ms - now) / 1000)))
            raise self.error(call, 429, f"Rate limited: {limit} {bucket} requests a minute on the "
                                        f"{account.plan} plan. Retry after {call.headers['Retry-After']} s.")
        window.used += 1
        remaining = limit - window.used
        window.announced_zero = window.announced_zero or remaining == 0
        call.headers["X-RateLimit-Remaining"] = str(remaining)

    def error(self, call: Call, status: int, message: str, *, charged: int = 0) -> ServiceError:
        return self.billing.error(call, status, message, charged=charged)

    # -- state ---------------------------------------------------------------------------------
    def to_state(self) -> dict[str, Any]:
        return {"accounts": [a.to_state() for a in self.ledger.accounts.values()], "world": self.world.to_state(),
                "feeds": self.feeds.to_state(), "cache": self.billing.cache_state(),
                "detailing": self.billing.detailing_state(), "outages": self.outages.to_state(),
                "key_counter": self.key_counter}

    def load_state(self, state: dict[str, Any]) -> None:
        """An exported state, every field checked (400 naming the first it refuses); called on a fresh
        model, which the fake discards when this raises."""
        read = StateReader(state, "model").only(("accounts", "world", "feeds", "cache", "detailing", "outages",
                                                   "key_counter"))
        accounts: dict[str, Account] = {}
        for account_read in read.objects("accounts", max_items=MAX_ACCOUNTS):
            account = Account.from_state(account_read)
            if account.api_key in accounts:
                refuse(account_read.where("api_key"), f"repeats the key {account.api_key}")
            accounts[account.api_key] = account
        self.world.load_state(read.object("world"))
        self.feeds.load_state(read.object("feeds"), accounts)
        self.billing.load_state(read, set(accounts))
        if read.has("outages"):
            self.outages.load_state(read, "outages")
        self.ledger.accounts = accounts
        self.key_counter = read.integer("key_counter", minimum=0, maximum=MAX_KEY_COUNTER)
