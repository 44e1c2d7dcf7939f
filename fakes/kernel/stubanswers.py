"""A stub's answer: status, headers and a body (JSON or text) that may use the request and the
fake's clock in templates (:mod:`fakes.kernel.templates`), compiled when the stub is added.

An answer with no placeholder is rendered once, at compile time: serving it costs what sending
its bytes costs. One with placeholders renders per request, within
:data:`fakes.kernel.templates.MAX_RENDERED` characters.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .http import check_json_value, dumps
from .rulespec import NOT_IN_HEADER, Refuse, SpecReader
from .templates import Context, Template, TemplateError

ANSWER_FIELDS = frozenset({"status", "headers", "json", "body", "latency_ms"})
DEFAULT_STATUS = 200
STATUS_RANGE = (200, 599)
JSON_TYPE = "application/json"
TEXT_TYPE = "text/plain; charset=utf-8"
#: one answer's body text at most (a JSON body's strings together)
MAX_ANSWER_TEXT = 1024 * 1024

#: (status, headers, body bytes) of one rendered answer
Rendered = tuple[int, list[tuple[str, str]], bytes]


class Answer:
    """One compiled answer of a stub (see the module)."""

    __slots__ = ("_body", "_headers", "given", "latency_ms", "reads_body", "rendered", "status")

    def __init__(self, given: Mapping[str, Any], status: int, headers: list[tuple[str, Template]], body: Any,
                 latency_ms: float) -> None:
        self.given = dict(given)  # as given: what listings and exported states show
        self.status = status
        self.latency_ms = latency_ms
        self._headers = headers
        self._body = body  # bytes (static), a Template (text), or a JSON template tree
        self.reads_body = any(t.reads_body for _, t in headers) or _reads_body(body)
        #: the whole answer when nothing in it varies, else None
        self.rendered: Rendered | None = None
        if all(t.is_static for _, t in headers) and isinstance(body, bytes):
            self.rendered = (status, [(name, t.text) for name, t in headers], body)

    def render(self, context: Context) -> Rendered:
        if self.rendered is not None:
            return self.rendered
        headers = [(name, NOT_IN_HEADER.sub("?", template.render(context))[:4000]) for name, template in self._headers]
        body = self._body
        if isinstance(body, bytes):
            raw = body
        elif isinstance(body, Template):
            raw = body.render(context).encode("utf-8", "replace")
        else:
            raw = dumps(_render_json(body, context))
        return self.status, headers, raw


def parse_answer(spec: Any, where: str, refuse: Refuse, *, max_latency_ms: float, templates: bool) -> Answer:
    """An answer as given (``{"status", "headers", "json" | "body", "latency_ms"}``), each refusal
    naming ``where.<field>``; ``templates`` false: texts are answered as they are."""
    if not isinstance(spec, Mapping):
        raise refuse(where, "must be an object: {\"status\": 200, \"headers\": {...}, \"json\": ... or \"body\": "
                            "\"text\"}")
    read = SpecReader(spec, refuse, where)
    read.only(ANSWER_FIELDS, "an answer")
    status = read.integer("status", *STATUS_RANGE, default=DEFAULT_STATUS)
    assert status is not None
    headers = read.headers()
    latency = read.number("latency_ms", 0.0, 0.0, max_latency_ms)
    if "json" in spec and "body" in spec:
        raise read.fail("body", "give json or body, not both")
    compiled_headers = [(name, _template(text, read.field(f"headers.{name}"), refuse, templates))
                        for name, text in headers.items()]
    names = {name.lower() for name in headers}
    body: Any = b""
    if "json" in spec:
        value = spec["json"]
        problem = check_json_value(value, read.field("json"), integers=False)
        if problem is not None:
            raise read.fail("json", problem.partition(": ")[2] or problem)
        if _text_size(value) > MAX_ANSWER_TEXT:
            raise read.fail("json", f"holds more than {MAX_ANSWER_TEXT} characters of text")
        body = _compile_json(value, read.field("json"), refuse) if templates else value
        if not _varies(body):
            body = dumps(value)
        if "content-type" not in names:
            compiled_headers.append(("content-type", Template(JSON_TYPE)))
    elif spec.get("body") is not None:
        text = spec["body"]
        if not isinstance(text, str) or check_json_value(text) is not None:
            raise read.fail("body", "must be text (Unicode); for a JSON body use json")
        if len(text) > MAX_ANSWER_TEXT:
            raise read.fail("body", f"holds more than {MAX_ANSWER_TEXT} characters")
        template = _template(text, read.field("body"), refuse, templates)
        body = template.text.encode("utf-8") if template.is_static else template
        if "content-type" not in names:
            compiled_headers.append(("content-type", Template(TEXT_TYPE)))
    return Answer(spec, status, compiled_headers, body, latency)


def _template(text: str, where: str, refuse: Refuse, templates: bool) -> Template:
    if not templates:
        return Template.literal(text)
    try:
        return Template(text)
    except TemplateError as exc:
        raise refuse(where, f"template: {exc}") from None


def _compile_json(value: Any, where: str, refuse: Refuse) -> Any:
    """``value`` with each string holding a placeholder as a :class:`Template` (keys stay text)."""
    if isinstance(value, str):
        return _template(value, where, refuse, True) if "{{" in value or "}}" in value else value
    if isinstance(value, Mapping):
        return {key: _compile_json(item, f"{where}.{key}", refuse) for key, item in value.items()}
    if isinstance(value, list):
        return [_compile_json(item, f"{where}[{index}]", refuse) for index, item in enumerate(value)]
    return value


def _varies(value: Any) -> bool:
    if isinstance(value, Template):
        return not value.is_static
    if isinstance(value, dict):
        return any(_varies(item) for item in value.values())
    if isinstance(value, list):
        return any(_varies(item) for item in value)
    return False


def _reads_body(value: Any) -> bool:
    if isinstance(value, Template):
        return value.reads_body
    if isinstance(value, dict):
        return any(_reads_body(item) for item in value.values())
    if isinstance(value, list):
        return any(_reads_body(item) for item in value)
    return False


def _render_json(value: Any, context: Context) -> Any:
    if isinstance(value, Template):
        return value.render_value(context)
    if isinstance(value, dict):
        return {key: _render_json(item, context) for key, item in value.items()}
    if isinstance(value, list):
        return [_render_json(item, context) for item in value]
    return value


def _text_size(value: Any) -> int:
    """The characters of text in a JSON value (strings and keys)."""
    size, stack = 0, [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            size += len(item)
        elif isinstance(item, Mapping):
            size += sum(len(str(key)) for key in item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return size
