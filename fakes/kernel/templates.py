"""Answer templates of stubs: a small language of its own, compiled when a stub is added.

``{{ value | filter | filter }}`` anywhere in a stub's text body, header values or the strings
of its JSON body. The values:

* ``request.method``, ``request.path`` (the path below the fake's base), ``request.url`` (with
  ``?query``), ``request.body`` (the body as text);
* ``request.path.<name>`` (a parameter of the stub's path template, ``/users/{id}``) or
  ``request.path.<n>`` (the n-th path segment, from 0);
* ``request.query.<name>`` (its first value), ``request.headers.<name>`` (any case),
  ``request.form.<name>``;
* ``request.body.<a>.<b>.<0>`` (a member of the JSON body, array items by index);
* ``now``, ``now + 1h``, ``now - 30m``, ``now + 1d + 2h`` (the fake's virtual clock; units ms,
  s, m, h, d), ISO 8601 unless a filter says otherwise.

A name holding a dot or another odd character goes in brackets: ``request.query.[page.size]``.
The filters: ``iso``, ``epoch_ms``, ``epoch_s``, ``upper``, ``lower``, ``json`` (the value as
JSON text). In a JSON body a string that is one placeholder and nothing else takes the value's
own type: ``"{{now + 1h | epoch_ms}}"`` is a number, ``"{{request.body.items}}"`` the array. A
missing value is empty text (``null`` in that typed position).

Nothing is evaluated: a template is a list of texts and placeholders, checked whole when the stub
is added (:class:`TemplateError` says what is wrong; the stub's field is named by the caller).
What one answer renders is bounded (:data:`MAX_RENDERED` characters; past it a value is cut).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson

from .budget import Budget
from .clock import MAX_EPOCH_MS, iso_ms
from .criteria import NOT_JSON, Sent

#: characters one answer renders at most (its values are cut past it)
MAX_RENDERED = 1024 * 1024
#: placeholders one template holds at most
MAX_PLACEHOLDERS = 1000
#: the largest offset from now a template may name (about 270 years)
MAX_OFFSET_MS = 100_000 * 86_400_000
FILTERS = ("iso", "epoch_ms", "epoch_s", "upper", "lower", "json")
TIME_FORMATS = ("iso", "epoch_ms", "epoch_s")
UNITS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
_PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}", re.S)
_NAME = r"(?:[A-Za-z0-9_\-]+|\[[^\]\n]{1,200}\])"
_REQUEST = re.compile(rf"request\.(method|path|url|body|query|headers|form)((?:\.{_NAME})*)\Z")
_KEY = re.compile(_NAME)
_NOW = re.compile(r"now((?:\s*[+-]\s*\d{1,9}\s*(?:ms|s|m|h|d))*)\Z")
_TERM = re.compile(r"([+-])\s*(\d{1,9})\s*(ms|s|m|h|d)")
_MISSING: Any = object()


class TemplateError(ValueError):
    """A template that cannot be used; the message says what and where."""


@dataclass(frozen=True)
class Placeholder:
    """One ``{{...}}``: where its value comes from and the filters applied to it."""

    source: str  # "now", or method / path / url / body / query / headers / form of the request
    keys: tuple[str, ...] = ()
    offset_ms: int = 0
    filters: tuple[str, ...] = ()

    @property
    def reads_body(self) -> bool:
        return self.source in ("body", "form")

    def value(self, context: Context) -> Any:
        """The value before its filters (``_MISSING`` when the request has none)."""
        if self.source == "now":
            return min(max(context.now_ms + self.offset_ms, 0), MAX_EPOCH_MS)
        return context.lookup(self.source, self.keys)

    def render(self, context: Context) -> Any:
        """The value with its filters: text, or a JSON value when the last filter gives a number."""
        value = self.value(context)
        filters = self.filters
        if self.source == "now" and not any(name in TIME_FORMATS for name in filters):
            filters = ("iso", *filters)
        for name in filters:
            value = _apply(name, value, self.source == "now")
        return value


class Template:
    """A compiled template: texts and placeholders in turn."""

    __slots__ = ("parts", "reads_body", "single", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        parts: list[str | Placeholder] = []
        at = 0
        for count, found in enumerate(_PLACEHOLDER.finditer(text)):
            if count >= MAX_PLACEHOLDERS:
                raise TemplateError(f"holds more than {MAX_PLACEHOLDERS} placeholders")
            if found.start() > at:
                parts.append(text[at:found.start()])
            parts.append(_placeholder(found.group(1)))
            at = found.end()
        if at < len(text):
            parts.append(text[at:])
        if any("{{" in part for part in parts if isinstance(part, str)):
            raise TemplateError("a {{ is not closed by }}")
        self.parts = tuple(parts)
        #: the one placeholder this template is, when it is nothing else (typed in JSON bodies)
        self.single = parts[0] if len(parts) == 1 and isinstance(parts[0], Placeholder) else None
        self.reads_body = any(isinstance(p, Placeholder) and p.reads_body for p in parts)

    @classmethod
    def literal(cls, text: str) -> Template:
        """``text`` as it is, placeholders or not (a stub with templates off)."""
        template = cls("")
        template.parts = (text,) if text else ()
        template.text = text
        return template

    @property
    def is_static(self) -> bool:
        return all(isinstance(part, str) for part in self.parts)

    def render(self, context: Context) -> str:
        out: list[str] = []
        for part in self.parts:
            out.append(part if isinstance(part, str) else context.spend(_as_text(part.render(context))))
        return "".join(out)

    def render_value(self, context: Context) -> Any:
        """In a JSON body: a single placeholder keeps its value's type; else the text."""
        if self.single is None:
            return self.render(context)
        value = self.single.render(context)
        if value is _MISSING:
            return None
        if isinstance(value, str):
            return context.spend(value)
        context.spend(_as_text(value))  # counted as the text it becomes
        return value


def contains_placeholder(text: str) -> bool:
    return "{{" in text or "}}" in text


class Context:
    """What a template reads of one request: the request (as the criteria read it), the path
    parameters of the stub's template, the fake's now; and what is left of the render budget."""

    __slots__ = ("left", "now_ms", "params", "sent")

    def __init__(self, sent: Sent, params: dict[str, str], now_ms: int) -> None:
        self.sent, self.params, self.now_ms = sent, params, now_ms
        self.left = MAX_RENDERED

    def spend(self, text: str) -> str:
        """``text``, cut to what is left of the budget."""
        if len(text) > self.left:
            text = text[:max(self.left, 0)]
        self.left -= len(text)
        return text

    def lookup(self, source: str, keys: tuple[str, ...]) -> Any:
        sent = self.sent
        budget = Budget()
        if source == "method":
            return sent.method
        if source == "url":
            return f"{sent.path}?{sent.query}" if sent.query else sent.path
        if source == "path":
            if not keys:
                return sent.path
            if keys[0].isdigit():
                segments = sent.path.strip("/").split("/")
                index = int(keys[0])
                return segments[index] if index < len(segments) else _MISSING
            return self.params.get(keys[0], _MISSING)
        if source == "query":
            values = sent.params(budget).get(keys[0]) if keys else None
            return values[0] if values else _MISSING
        if source == "headers":
            found = sent.header(keys[0].lower()) if keys else None
            return _MISSING if found is None else found
        text = sent.text(budget)
        if text is None:
            return _MISSING
        if source == "form":
            values = sent.form(text, budget).get(keys[0]) if keys else None
            return values[0] if values else _MISSING
        if not keys:
            return text
        value = sent.json(text, budget) if text else NOT_JSON
        if value is NOT_JSON:
            return _MISSING
        for key in keys:
            if isinstance(value, dict):
                value = value.get(key, _MISSING)
            elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
                value = value[int(key)]
            else:
                return _MISSING
        return value


def _placeholder(inner: str) -> Placeholder:
    expression, *filters = (piece.strip() for piece in inner.split("|"))
    for name in filters:
        if name not in FILTERS:
            raise TemplateError(f"{{{{{inner.strip()[:100]}}}}}: unknown filter {name[:50]!r} "
                                f"(known: {', '.join(FILTERS)})")
    now = _NOW.match(expression)
    if now is not None:
        offset = sum((1 if sign == "+" else -1) * int(amount) * UNITS[unit]
                     for sign, amount, unit in _TERM.findall(now.group(1)))
        if abs(offset) > MAX_OFFSET_MS:
            raise TemplateError(f"{{{{{expression[:100]}}}}}: an offset of at most 100000 days")
        return Placeholder("now", (), offset, tuple(filters))
    found = _REQUEST.match(expression)
    if found is None:
        raise TemplateError(f"{{{{{inner.strip()[:100]}}}}}: not a value; use request.method, request.path, "
                            "request.url, request.path.<name>, request.query.<name>, request.headers.<name>, "
                            "request.form.<name>, request.body[.<key>...], now, now + 1h")
    source = found.group(1)
    keys = tuple(key.strip("[]") if key.startswith("[") else key for key in _KEY.findall(found.group(2)))
    if source in ("method", "url") and keys:
        raise TemplateError(f"{{{{{expression[:100]}}}}}: request.{source} has no members")
    if source in ("query", "headers", "form") and len(keys) != 1:
        raise TemplateError(f"{{{{{expression[:100]}}}}}: name one {source[:-1] if source != 'query' else source} "
                            f"value: request.{source}.<name>")
    if source == "path" and len(keys) > 1:
        raise TemplateError(f"{{{{{expression[:100]}}}}}: request.path.<name> or request.path.<n>")
    if any(name in TIME_FORMATS for name in filters) and source != "now":
        raise TemplateError(f"{{{{{inner.strip()[:100]}}}}}: iso, epoch_ms and epoch_s format now")
    return Placeholder(source, keys, 0, tuple(filters))


def _apply(name: str, value: Any, is_time: bool) -> Any:
    if value is _MISSING:
        return value
    if name == "iso":
        return iso_ms(value) if is_time and isinstance(value, int) else value
    if name == "epoch_ms":
        return value
    if name == "epoch_s":
        return value // 1000 if isinstance(value, int) else value
    if name == "json":
        return orjson.dumps(value).decode()
    text = _as_text(value)
    return text.upper() if name == "upper" else text.lower()


def _as_text(value: Any) -> str:
    if value is _MISSING or value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return orjson.dumps(value).decode()
