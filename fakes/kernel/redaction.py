"""Credentials shown as ``[redacted]``: one rule for everything a fake shows of what clients sent.

The journal's entries (listings, find answers, near misses, the dashboard), the verdicts (their
details and offending requests, in ``GET /_fake/verdicts``, the pytest report, the summary of
``fakes serve``), and the request log all show a request through one :class:`Redactor` per
service. What is secret (docs/testing.md, "Credentials are redacted"):

* headers: ``Authorization`` and ``Proxy-Authorization`` (shown with their scheme:
  ``Bearer [redacted]``), ``Cookie``, ``Set-Cookie``, and any name with ``token``, ``secret``,
  ``password``, ``api-key``, ``apikey``, ``credential`` or ``auth`` in it (``X-Auth``,
  ``X-Auth-Token``; not ``WWW-Authenticate``), plus the service's own;
* query parameters and form fields: the fields below, any name with ``token``, ``secret``,
  ``password``, ``passwd`` or ``credential`` in it, and key-like names (``key``, ``api_key``,
  ``apikey``, ``x-api-key``, ``access_key``: ``key`` or ending in ``_key``, ``-key``, ``apikey``),
  plus the service's own;
* JSON keys: :data:`SECRET_FIELDS` plus the service's own.

What the verification criteria may learn of a redacted value is only whether it equals a whole
value given (fakes/kernel/verify.py): ``contains``, ``matches`` and ``body_contains`` read the
value as it is shown. A verdict's detail never shows a credential the offending request carried
(:meth:`Redactor.detail`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qsl, unquote_plus

REDACTED = "[redacted]"

#: request and answer headers always shown redacted, and words that make any header name secret
SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
SECRET_HEADER_WORDS = ("token", "secret", "password", "api-key", "apikey", "credential", "auth")
#: names with "auth" in them that describe a scheme, not a credential
PUBLIC_HEADERS = frozenset({"www-authenticate", "proxy-authenticate", "authentication-info"})
#: JSON keys, form fields and query parameters shown redacted in every service
SECRET_FIELDS = ("password", "client_secret", "access_token", "refresh_token", "id_token", "api_key", "apiKey",
                 "secret")
#: words that make a query parameter or form field name secret (compared in lower case, "-" as "_")
SECRET_FIELD_WORDS = ("token", "secret", "password", "passwd", "credential")
#: names whose secrecy a redactor remembers (clients repeat theirs), and the longest remembered
MAX_REMEMBERED_NAMES = 4096
MAX_REMEMBERED_NAME = 128
#: a client that breaks a rule usually sends the same request again: what its credentials are and
#: how its verdicts read redacted are remembered for that many requests and texts of this size
MAX_REMEMBERED_REQUESTS = 256
MAX_REMEMBERED_TEXT = 4096
#: a credential shorter than this is not searched for in a verdict's detail (it would hide digits)
MIN_SECRET_LENGTH = 4

_PAIR = re.compile(r"(?:^|(?<=[&;?]))([^=&;#\s\"]+)=([^&;#\s\"]*)")
#: name=value anywhere in a sentence (a verdict's detail)
_LOOSE_PAIR = re.compile(r"(?<![\w.-])([\w.-]+)=([^&;#\s\"',)]*)")


class Redactor:
    """Shows credentials as ``[redacted]`` (see the module for which). Built once per service (the
    kernel's names plus the service's own) and shared by its fake and worlds."""

    def __init__(self, headers: Iterable[str] = (), fields: Iterable[str] = (),
                 form_fields: Iterable[str] = ()) -> None:
        self.headers = SECRET_HEADERS | {name.lower() for name in headers}
        self.fields = frozenset({*SECRET_FIELDS, *fields})
        self.form_fields = self.fields | set(form_fields)
        self._known: dict[tuple[str, bool], bool] = {}  # (name, header?) -> secret, for names seen lately
        self._secrets: dict[tuple[Any, ...], tuple[str, ...]] = {}  # (headers, query, body) -> secrets(), lately
        self._details: dict[tuple[Any, ...], str] = {}  # (text, secrets) -> detail(), lately
        #: (verdicts, headers, query, body) -> what fakes/kernel/verdicts.py showed of them, lately
        #: (``Verdicts.shown`` keeps it to MAX_REMEMBERED_REQUESTS requests of MAX_REMEMBERED_TEXT bytes)
        self.verdicts_shown: dict[tuple[Any, ...], Any] = {}
        # a JSON string value (possibly cut off by the body limit)
        self._json = re.compile(r'("(?:' + _alternatives(self.fields) + r')"\s*:\s*)"((?:[^"\\]|\\.)*)"?')

    # -- what is secret ------------------------------------------------------------------------
    def is_secret_header(self, name: str) -> bool:
        """``name`` in lower case."""
        known = self._known.get((name, True))
        if known is None:
            known = name in self.headers or (any(word in name for word in SECRET_HEADER_WORDS)
                                             and name not in PUBLIC_HEADERS)
            self._remember(name, True, known)
        return known

    def is_secret_field(self, name: str, *, form: bool = False) -> bool:
        """A JSON key (``form=False``: the declared names), or a query parameter or form field."""
        if not form:
            return name in self.fields
        known = self._known.get((name, False))
        if known is None:
            known = name in self.form_fields or secret_field_name(name)
            self._remember(name, False, known)
        return known

    def _remember(self, name: str, header: bool, secret: bool) -> None:
        if len(name) <= MAX_REMEMBERED_NAME:
            if len(self._known) >= MAX_REMEMBERED_NAMES:
                self._known.clear()
            self._known[(name, header)] = secret

    # -- what is shown -------------------------------------------------------------------------
    def header(self, name: str, value: str) -> str:
        if not self.is_secret_header(name):
            return value
        scheme, space, rest = value.partition(" ")
        if name.endswith("authorization") and space and rest and scheme.isalpha():
            return f"{scheme} {REDACTED}"
        return REDACTED

    def text(self, text: str) -> str:
        """A body (or any text): secret JSON string values and form fields redacted."""
        if '"' in text:
            text = self._json.sub(r'\1"' + REDACTED + '"', text)
        if "=" in text:
            text = _PAIR.sub(self._pair, text)
        return text

    def query(self, query: str) -> str:
        if "=" not in query:
            return query
        if len(query) > MAX_REMEMBERED_TEXT:
            return _PAIR.sub(self._pair, query)
        key = ("?", query)
        shown = self._details.get(key)
        if shown is None:
            if len(self._details) >= MAX_REMEMBERED_REQUESTS:
                self._details.clear()
            shown = self._details[key] = _PAIR.sub(self._pair, query)
        return shown

    def _pair(self, found: re.Match[str]) -> str:
        name = found.group(1)
        if self.is_secret_field(unquote_plus(name), form=True):
            return f"{name}={REDACTED}"
        return found.group(0)

    # -- verdicts ------------------------------------------------------------------------------
    def secrets(self, headers: Iterable[tuple[bytes, bytes]], query: str = "", body: str = "") -> tuple[str, ...]:
        """The credentials one request carried (secret header values, their tokens and cookie
        values, secret query, form and JSON values), longest first: what :meth:`detail` hides."""
        pairs = tuple(headers)
        if len(query) + len(body) + sum(len(value) for _, value in pairs) > MAX_REMEMBERED_TEXT:
            return self._find_secrets(pairs, query, body)
        key = (pairs, query, body)
        found = self._secrets.get(key)
        if found is None:
            if len(self._secrets) >= MAX_REMEMBERED_REQUESTS:
                self._secrets.clear()
            found = self._secrets[key] = self._find_secrets(pairs, query, body)
        return found

    def _find_secrets(self, headers: Iterable[tuple[bytes, bytes]], query: str, body: str) -> tuple[str, ...]:
        found: set[str] = set()
        for raw_name, raw_value in headers:
            name = raw_name.decode("latin-1").lower()
            if not self.is_secret_header(name):
                continue
            value = raw_value.decode("latin-1")
            found.add(value)
            found.add(value.partition(" ")[2].strip())  # the token of "Bearer <token>"
            if name.endswith("cookie"):
                found.update(part.partition("=")[2].strip() for part in value.split(";"))
        for text in (query, body):
            if "=" in text:
                for name, value in parse_qsl(text, keep_blank_values=True):
                    if self.is_secret_field(name, form=True):
                        found.add(value)
            if text is body and '"' in text:
                found.update(match.group(2) for match in self._json.finditer(text))
        return tuple(sorted((value for value in found if len(value) >= MIN_SECRET_LENGTH), key=len, reverse=True))

    def detail(self, text: str, secrets: Iterable[str] = ()) -> str:
        """A free text about a request (a verdict's detail): each of its ``secrets`` and every
        secret JSON or form value shown redacted."""
        secrets = tuple(secrets)
        if len(text) > MAX_REMEMBERED_TEXT:
            return self._redact_detail(text, secrets)
        key = (text, secrets)
        shown = self._details.get(key)
        if shown is None:
            if len(self._details) >= MAX_REMEMBERED_REQUESTS:
                self._details.clear()
            shown = self._details[key] = self._redact_detail(text, secrets)
        return shown

    def _redact_detail(self, text: str, secrets: tuple[str, ...]) -> str:
        for secret in secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        text = self.text(text)
        return _LOOSE_PAIR.sub(self._pair, text) if "=" in text else text


def secret_field_name(name: str) -> bool:
    """Whether a query parameter or form field is secret by its name alone (see the module)."""
    lowered = name.lower().replace("-", "_")
    return (any(word in lowered for word in SECRET_FIELD_WORDS) or lowered == "key"
            or lowered.endswith(("_key", "apikey")))


def _alternatives(names: Iterable[str]) -> str:
    return "|".join(re.escape(name) for name in sorted(names, key=lambda name: (-len(name), name)))


@functools.lru_cache(maxsize=64)
def redactor(headers: tuple[str, ...] = (), fields: tuple[str, ...] = (),
             form_fields: tuple[str, ...] = ()) -> Redactor:
    """The shared :class:`Redactor` of a service's secret names (one per service, not per world)."""
    return Redactor(headers, fields, form_fields)
