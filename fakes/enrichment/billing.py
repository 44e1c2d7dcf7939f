"""Charging an answer: the cost header, the least charge, the per-account cache window, refusals.

Every refusal of a request in progress is :meth:`Billing.error`: a :class:`ServiceError` that
already carries the request's headers (rate limits) and its cost header, so the header is on
every response. Plain Python: the instant of a call is the call's own ``now_ms``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from fakes.kernel.clock import MAX_EPOCH_MS
from fakes.kernel.errors import ServiceError
from fakes.kernel.statecheck import StateReader, check_integer, check_text, refuse

from .calls import Call
from .credits import DAY_MS, Ledger, render, tenths
from .settings import EnrichmentSettings

#: the longest cache key the fake makes (operation, domain and flags): a longer one is no export of it
CACHE_KEY_MAX = 4096
T = TypeVar("T")
_NOTHING: dict[str, tuple[int, int]] = {}  # an account that paid for nothing yet (read only)


class Billing:
    """Charges and the cache window of every account of one model."""

    def __init__(self, settings: EnrichmentSettings, ledger: Ledger) -> None:
        self.settings = settings
        self.ledger = ledger
        self.cost_header = settings.cost_header
        self.minimum_tenths = tenths(settings.minimum_charge)  # settings are fixed for the fake's life
        #: per account: (operation, normalised request) -> (paid at, record version)
        self.cache: dict[str, dict[str, tuple[int, int]]] = {}
        #: per account: person-profile cache key -> when the detailed enrichment an enrichment=fast
        #: lookup started completes (the answer is the fast profile until then)
        self.detailing: dict[str, dict[str, int]] = {}

    def error(self, call: Call, status: int, message: str, *, charged: int = 0,
              headers: dict[str, str] | None = None) -> ServiceError:
        """The refusal of ``call``: its headers so far, the cost header (``charged`` tenths) and ``headers``."""
        answer_headers = dict(call.headers)
        answer_headers[self.cost_header] = render(charged)
        if headers:
            answer_headers.update(headers)
        return ServiceError(status, message, headers=answer_headers)

    # -- the cache window ----------------------------------------------------------------------
    def paid_for(self, call: Call, key: str, version: int) -> int | None:
        """When this account last paid for ``key`` at this record version, or None."""
        assert call.account is not None
        entry = self.cache.get(call.account.api_key, _NOTHING).get(key)
        return None if entry is None or entry[1] != version else entry[0]

    def free_at(self, call: Call, paid_at: int | None, mode: str) -> int | None:
        """``paid_at`` (:meth:`paid_for`) if an answer paid then may be served again for free."""
        if paid_at is None or mode == "never":
            return None
        if mode in ("if-present", "if-present-only"):
            return paid_at
        days = self.settings.updates_cache_window_days if call.op.name == "company_updates" else \
            self.settings.cache_window_days
        return paid_at if call.now_ms - paid_at < days * DAY_MS else None

    def remember(self, call: Call, key: str, version: int) -> None:
        assert call.account is not None
        self.cache.setdefault(call.account.api_key, {})[key] = (call.now_ms, version)

    def within_window(self, call: Call, paid_at: int | None) -> bool:
        """Whether ``paid_at`` (:meth:`paid_for`) is inside the cache window."""
        return paid_at is not None and call.now_ms - paid_at < self.settings.cache_window_days * DAY_MS

    # -- detailed enrichment after enrichment=fast -------------------------------------------------
    def detail_pending(self, call: Call, key: str) -> bool:
        """Whether the detailed enrichment of ``key`` is still running (the answer: the fast profile)."""
        assert call.account is not None
        ready = self.detailing.get(call.account.api_key, {}).get(key)
        if ready is not None and call.now_ms >= ready:
            self.finish_detail(call, key)
            return False
        return ready is not None

    def start_detail(self, call: Call, key: str, ready_ms: int) -> None:
        assert call.account is not None
        self.detailing.setdefault(call.account.api_key, {})[key] = ready_ms

    def finish_detail(self, call: Call, key: str) -> None:
        assert call.account is not None
        pending = self.detailing.get(call.account.api_key)
        if pending is not None and pending.pop(key, None) is not None and not pending:
            del self.detailing[call.account.api_key]

    # -- charging ------------------------------------------------------------------------------
    def settle(self, call: Call, cost: int, *, cached: bool = False) -> None:
        """Charge a successful answer: a billed one at least the minimum unless served from the cache;
        403 (nothing charged) when the balance is short."""
        assert call.account is not None
        if call.op.billed and not cached:
            cost = max(cost, self.minimum_tenths)
        if not self.ledger.charge(call.account, cost, call.now_ms):
            balance = self.ledger.balance(call.account, call.now_ms)
            raise self.error(call, 403, f"Insufficient credits: this call costs {render(cost)} credits, your "
                                        f"balance is {render(balance)}. Buy a credit pack to continue.")
        call.headers[self.cost_header] = render(cost)

    def charge_failure(self, call: Call, base_cost: float) -> int:
        """The real service's charging of some 404s (setting charge_failed_like_real); returns tenths."""
        if not self.settings.charge_failed_like_real or call.account is None:
            return 0
        amount = tenths(base_cost)
        return amount if self.ledger.charge(call.account, amount, call.now_ms) else 0

    # -- state ---------------------------------------------------------------------------------
    def cache_state(self) -> dict[str, Any]:
        return {key: {entry: list(value) for entry, value in entries.items()} for key, entries in self.cache.items()}

    def detailing_state(self) -> dict[str, Any]:
        return {key: dict(entries) for key, entries in self.detailing.items()}

    def load_state(self, read: StateReader, accounts: set[str]) -> None:
        """``cache`` (key -> [paid at ms, record version]) and ``detailing`` (key -> ready at ms), each
        per account of the state."""
        def pair(value: Any, field: str) -> tuple[int, int]:
            if not isinstance(value, list) or len(value) != 2:
                refuse(field, "must be [paid at ms, record version]")
            return (check_integer(value[0], f"{field}[0]", minimum=0, maximum=MAX_EPOCH_MS),
                    check_integer(value[1], f"{field}[1]", minimum=0, maximum=2**31 - 1))

        self.cache = _per_account(read, "cache", accounts, pair)
        if read.has("detailing"):  # states exported before enrichment=fast was modelled have none
            self.detailing = _per_account(read, "detailing", accounts, lambda value, field: check_integer(
                value, field, minimum=0, maximum=MAX_EPOCH_MS + 86_400_000))


def _per_account(read: StateReader, name: str, accounts: set[str],
                 read_value: Callable[[Any, str], T]) -> dict[str, dict[str, T]]:
    found: dict[str, dict[str, T]] = {}
    entries_of = read.object(name)
    for api_key in entries_of.value:
        if api_key not in accounts:
            refuse(entries_of.where(api_key), "is not the key of an account of this state")
        entries = entries_of.object(api_key)
        found[api_key] = {}
        for key, value in entries.value.items():
            check_text(key, entries.where(key), max_length=CACHE_KEY_MAX, min_length=1)
            found[api_key][key] = read_value(value, entries.where(key))
    return found
