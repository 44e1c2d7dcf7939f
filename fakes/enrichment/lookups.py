"""Each operation's answer and its cost, computed from what the answer really contains.

``Lookups.run`` takes a call that passed the model's ``begin``, checks its parameters and hands it
to the operation (``op_<name>`` of the company, people and monitor lookups).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .calls import Answer, Call
from .company_lookups import CompanyLookups
from .monitor_lookups import MonitorLookups
from .params import parse_params
from .people_lookups import PeopleLookups

Handler = Callable[[Call, dict[str, Any], str, bool, Any, dict[str, str]], Answer]


class Lookups(CompanyLookups, PeopleLookups, MonitorLookups):
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.handlers: dict[str, Handler] = {}

    def run(self, call: Call, params: Mapping[str, str], *, base: str, real: bool, body: Any = None,
            path_params: Mapping[str, str] | None = None) -> Answer:
        """The operation's answer to the parameters as sent (400 for a bad one)."""
        return self.answer(call, self.parse(call, params), base=base, real=real, body=body, path_params=path_params)

    def parse(self, call: Call, params: Mapping[str, str]) -> dict[str, Any]:
        """The operation's parameters as values (400 for a bad one); the same for the same ``params``."""
        return parse_params(call, params, self.billing.error)

    def answer(self, call: Call, parsed: dict[str, Any], *, base: str, real: bool, body: Any = None,
               path_params: Mapping[str, str] | None = None) -> Answer:
        """The operation's answer to parameters :meth:`parse` gave (read, never changed: they may be
        shared by requests that sent the same query)."""
        handler = self.handlers.get(call.op.name)
        if handler is None:
            handler = self.handlers[call.op.name] = getattr(self, "op_" + call.op.name)
        # the route's own dict as it is (handlers only read it): no copy per request
        given = path_params if path_params.__class__ is dict else dict(path_params or {})
        return handler(call, parsed, base, real, body, given)
