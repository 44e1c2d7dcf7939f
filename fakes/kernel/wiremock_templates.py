"""WireMock's response templates (Handlebars, https://wiremock.org/docs/response-templating/) in
this fake's template language (:mod:`fakes.kernel.templates`): the common helpers translate, any
other is refused with its name."""

from __future__ import annotations

import re

_STASH = re.compile(r"\{\{\{?(.*?)\}?\}\}", re.S)
_REQUEST = re.compile(r"request\.(path|pathSegments|query|headers|url|method|body)"
                      r"((?:\.(?:\[[^\]]*\]|[A-Za-z0-9_\-]+))*)\Z")
_SEGMENT = re.compile(r"\.(?:\[([^\]]*)\]|([A-Za-z0-9_\-]+))")
_JSON_PATH = re.compile(r"jsonPath\s+request\.body\s+'\$((?:\.[A-Za-z_][A-Za-z0-9_\-]*|\[\d+\])*)'\Z")
_NOW = re.compile(r"now((?:\s+(?:offset|format)=(?:'[^']*'|\"[^\"]*\"))*)\Z")
_OPTION = re.compile(r"(offset|format)=(?:'([^']*)'|\"([^\"]*)\")")
_OFFSET = re.compile(r"(-?\d{1,9})\s+(seconds?|minutes?|hours?|days?)\Z")
_UNITS = {"second": "s", "minute": "m", "hour": "h", "day": "d"}
_FORMATS = {"epoch": "epoch_ms", "unix": "epoch_s"}


class Untranslatable(ValueError):
    """A mapping that cannot be translated: the message says what and why."""


def handlebars(text: str) -> str:
    """``text`` with each ``{{...}}`` (or ``{{{...}}}``) of WireMock's helpers in this fake's language."""
    return _STASH.sub(lambda found: "{{" + _expression(found.group(1).strip()) + "}}", text)


def _expression(inner: str) -> str:
    request = _REQUEST.match(inner)
    if request is not None:
        source = request.group(1)
        keys = [bracketed or plain
                for bracketed, plain in _SEGMENT.findall(request.group(2))]
        if source == "pathSegments":
            source = "path"
        if source in ("query", "headers") and len(keys) == 2 and keys[1] == "0":
            keys = keys[:1]  # the first value, as this language reads it anyway
        if (source in ("url", "method") and keys) or (len(keys) > 1 and source != "body"):
            raise Untranslatable(f"the template {{{{{inner[:100]}}}}} is not translated")
        return "request." + ".".join([source, *(f"[{key}]" if "." in key else key for key in keys)])
    path = _JSON_PATH.match(inner)
    if path is not None:
        keys = re.findall(r"\.([A-Za-z_][A-Za-z0-9_\-]*)|\[(\d+)\]", path.group(1))
        return "request.body" + "".join(f".{name or index}" for name, index in keys)
    now = _NOW.match(inner)
    if now is not None:
        return _now(inner, now.group(1))
    helper = inner.split()[0] if inner.split() else inner
    raise Untranslatable(f"the template helper {helper[:50]!r} ({{{{{inner[:100]}}}}}) is not translated")


def _now(inner: str, options: str) -> str:
    text = "now"
    filters = ""
    for name, single, double in _OPTION.findall(options):
        value = single if single else double
        if name == "offset":
            found = _OFFSET.match(value.strip())
            if found is None:
                raise Untranslatable(f"the offset {value!r} of {{{{{inner[:100]}}}}} is not in seconds, minutes, "
                                     "hours or days")
            amount = int(found.group(1))
            unit = _UNITS[found.group(2).rstrip("s")]
            text += f" {'-' if amount < 0 else '+'} {abs(amount)}{unit}"
        else:
            if value not in _FORMATS:
                raise Untranslatable(f"the format {value!r} of {{{{{inner[:100]}}}}} is not translated "
                                     "(epoch and unix are; the default is ISO 8601)")
            filters = f" | {_FORMATS[value]}"
    return text + filters
