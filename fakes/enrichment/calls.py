"""One request in progress (:class:`Call`) and an operation's answer (:class:`Answer`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fakes.kernel.verdicts import ClientRule

from .credits import Account
from .operations import Operation


@dataclass(slots=True)
class Call:
    """One request in progress: who, which operation, and the headers every answer carries."""

    op: Operation
    account: Account | None
    now_ms: int
    headers: dict[str, str] = field(default_factory=dict)
    flags: list[tuple[ClientRule, str]] = field(default_factory=list)
    #: the path of the route table the request came in on ("" for MCP tools)
    route_path: str = ""


@dataclass(slots=True)
class Answer:
    body: Any                       # a JSON value, bytes (the logo) or text (RSS)
    status: int = 200
    media_type: str = "application/json"
