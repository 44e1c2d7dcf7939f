"""Each API key's watchlist of companies: what ``on_watchlist`` filters and webhooks follow.

Plain data: the companies in the order they were added, and whether an administrator locked the
list (the control plane's ``POST /_fake/watchlists``; a locked list refuses changes with 403).
Requests hand in company ids the model has already checked exist.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fakes.kernel.errors import ServiceError
from fakes.kernel.statecheck import StateReader, refuse

LOCKED = "The watchlist is locked by an administrator."


def answer(status: int, message: str, company_id: int | None = None) -> ServiceError:
    """A refusal in the watchlist's own shape (``status``/``message``, and ``detail``)."""
    err = ServiceError(status, message, code="watchlist")
    # `status` and `message` are ServiceError's own parameters: the body's fields are set afterwards
    err.extra["status"] = "error"
    err.extra["message"] = message
    if company_id is not None:
        err.extra["company_id"] = company_id
    return err


@dataclass
class Watchlist:
    companies: list[int] = field(default_factory=list)
    locked: bool = False
    _set: frozenset[int] | None = None

    @property
    def ids(self) -> frozenset[int]:
        if self._set is None:
            self._set = frozenset(self.companies)
        return self._set

    def _changed(self) -> None:
        self._set = None

    def require_unlocked(self) -> None:
        if self.locked:
            raise ServiceError(403, LOCKED, code="watchlist_locked")


class Watchlists:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.by_key: dict[str, Watchlist] = {}

    def of(self, key: str) -> Watchlist:
        found = self.by_key.get(key)
        if found is None:
            found = self.by_key[key] = Watchlist()
        return found

    def watched(self, key: str) -> frozenset[int]:
        found = self.by_key.get(key)
        return found.ids if found is not None else frozenset()

    def add(self, key: str, company_id: int) -> None:
        watchlist = self.of(key)
        watchlist.require_unlocked()
        if company_id in watchlist.ids:
            raise answer(400, "Company already in watchlist.", company_id)
        if len(watchlist.companies) >= self.limit:
            raise answer(400, f"The watchlist holds at most {self.limit} companies.", company_id)
        watchlist.companies.append(company_id)
        watchlist._changed()

    def remove(self, key: str, company_id: int) -> None:
        watchlist = self.of(key)
        watchlist.require_unlocked()
        if company_id not in watchlist.ids:
            raise answer(404, "Company not in watchlist.", company_id)
        watchlist.companies.remove(company_id)
        watchlist._changed()

    def add_many(self, key: str, company_ids: list[int]) -> list[int]:
        """Adds those not on the list yet (in the order given); returns them."""
        watchlist = self.of(key)
        watchlist.require_unlocked()
        added = [cid for cid in dict.fromkeys(company_ids) if cid not in watchlist.ids]
        if len(watchlist.companies) + len(added) > self.limit:
            raise ServiceError(400, f"The watchlist holds at most {self.limit} companies.", code="invalid_body")
        watchlist.companies.extend(added)
        watchlist._changed()
        return added

    def remove_many(self, key: str, company_ids: list[int]) -> list[int]:
        watchlist = self.of(key)
        watchlist.require_unlocked()
        removed = [cid for cid in dict.fromkeys(company_ids) if cid in watchlist.ids]
        gone = set(removed)
        watchlist.companies = [cid for cid in watchlist.companies if cid not in gone]
        watchlist._changed()
        return removed

    def rekey(self, old: str, new: str) -> None:
        """A key was rotated: its watchlist follows it."""
        if old in self.by_key:
            self.by_key[new] = self.by_key.pop(old)

    def lock(self, key: str, locked: bool) -> Watchlist:
        watchlist = self.of(key)
        watchlist.locked = locked
        return watchlist

    # -- state ---------------------------------------------------------------------------------
    def to_state(self) -> list[dict[str, Any]]:
        return [{"api_key": key, "companies": list(w.companies), "locked": w.locked}
                for key, w in self.by_key.items() if w.companies or w.locked]

    @classmethod
    def read(cls, read: StateReader, name: str, limit: int, keys: set[str], has_company: Any) -> Watchlists:
        found = cls(limit)
        for item in read.objects(name):
            item.only(("api_key", "companies", "locked"))
            key = item.text("api_key", max_length=200)
            if key not in keys:
                refuse(item.where("api_key"), "names no key of model.keys")
            if key in found.by_key:
                refuse(item.where("api_key"), "repeats a watchlist")
            companies = item.array("companies", max_items=limit)
            for index, company_id in enumerate(companies):
                where = item.where(f"companies[{index}]")
                if isinstance(company_id, bool) or not isinstance(company_id, int) or not has_company(company_id):
                    refuse(where, "names no company")
            if len(set(companies)) != len(companies):
                refuse(item.where("companies"), "repeats a company")
            found.by_key[key] = Watchlist(list(companies), item.boolean("locked"))
        return found
