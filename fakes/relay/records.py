"""The relay's call records: the last ``MAX_CALL_RECORDS`` calls, oldest first.

Each is kept as a tuple and becomes a dict only when read (``GET /calls/{id}``, the state export,
the workflow receipts): a call answered costs one small tuple, not a ten-key dict.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

MAX_CALL_RECORDS = 20_000

#: (call_id, endpoint_id, provider, credential, status, cost_micro, team_id, epoch_ms, routed_id, replay_of)
Row = tuple[str, "str | None", "str | None", "str | None", int, int, str, int, "str | None", "str | None"]


class CallRecords:
    """Call id -> record, bounded; a dict-like read side (``get``, ``values``, ``len``, ``in``)."""

    def __init__(self, limit: int = MAX_CALL_RECORDS) -> None:
        self.limit = limit
        self._rows: OrderedDict[str, Row] = OrderedDict()

    def add(self, call_id: str, endpoint_id: str | None, provider: str | None, credential: str | None, status: int,
            cost_micro: int, team_id: str, epoch_ms: int, routed_id: str | None = None,
            replay_of: str | None = None) -> None:
        rows = self._rows
        rows[call_id] = (call_id, endpoint_id, provider, credential, status, cost_micro, team_id, epoch_ms,
                         routed_id, replay_of)
        if len(rows) > self.limit:
            rows.popitem(last=False)

    def get(self, call_id: str, default: Any = None) -> Any:
        """The record as a dict, or ``default``."""
        row = self._rows.get(call_id)
        return default if row is None else _record(row)

    def values(self) -> Iterator[dict[str, Any]]:
        return (_record(row) for row in list(self._rows.values()))

    def __len__(self) -> int:
        return len(self._rows)

    def __contains__(self, call_id: object) -> bool:
        return call_id in self._rows

    def load(self, record: Any) -> None:
        """A record as :meth:`values` exports it (the state's ``calls``); ``ValueError`` when malformed."""
        if not isinstance(record, dict) or not isinstance(record.get("call_id"), str):
            raise ValueError("each call record needs a call_id")
        status, cost, at = record.get("status", 0), record.get("cost_micro", 0), record.get("epoch_ms", 0)
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (status, cost, at)):
            raise ValueError("a call record's status, cost_micro and epoch_ms are integers")
        texts = [record.get(name) for name in ("endpoint_id", "provider", "credential", "routed_id", "replay_of")]
        if not all(v is None or isinstance(v, str) for v in texts):
            raise ValueError("a call record's endpoint_id, provider, credential, routed_id and replay_of are "
                             "strings or null")
        endpoint_id, provider, credential, routed_id, replay_of = texts
        self.add(record["call_id"], endpoint_id, provider, credential, status, cost, str(record.get("team_id", "")),
                 at, routed_id, replay_of)


def _record(row: Row) -> dict[str, Any]:
    call_id, endpoint_id, provider, credential, status, cost, team_id, epoch_ms, routed_id, replay_of = row
    record: dict[str, Any] = {"call_id": call_id, "endpoint_id": endpoint_id, "provider": provider,
                              "credential": credential, "status": status, "cost_micro": cost, "billed": cost > 0,
                              "replayed": replay_of is not None}
    if replay_of is not None:
        record["replay_of"] = replay_of
    record["team_id"], record["epoch_ms"] = team_id, epoch_ms
    if routed_id is not None:
        record["routed_id"] = routed_id
    return record
