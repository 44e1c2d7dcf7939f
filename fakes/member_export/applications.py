"""Developer applications: what the developer portal would hold (client id and secret, redirect URLs,
the scopes its products grant). Registered through the control plane, several per fake.

Redirect URL rules follow LinkedIn's "Authorization Code Flow" page (learn.microsoft.com, LinkedIn
shared/authentication): absolute URLs, no ``#`` fragment, and query parameters do not take part in
matching. An application's scopes are those its products grant; requesting another one is refused
with ``unauthorized_scope_error``.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import SplitResult, urlsplit

from fakes.kernel.clock import MAX_EPOCH_MS
from fakes.kernel.errors import ServiceError
from fakes.kernel.statecheck import StateReader, refuse

from .data import mix

#: product name -> the scopes it grants (the two Member Data Portability products)
PRODUCTS: dict[str, tuple[str, ...]] = {
    "Member Data Portability API (Member)": ("r_dma_portability_self_serve",),
    "Member Data Portability API (3rd Party)": ("r_dma_portability_3rd_party",),
}
APPLICATION_FIELDS = frozenset({"name", "redirect_uris", "scopes", "products", "client_id", "client_secret",
                                "refresh_tokens"})
CLIENT_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")
SECRET = re.compile(r"[!-~]{1,200}")          # printable ASCII, no blanks
SCOPE = re.compile(r"[A-Za-z0-9_.:-]{1,100}")
#: an absolute http(s) URL in ASCII without blanks or a # fragment (a host name: punycode for IDNs)
REDIRECT_URI = re.compile(r"[Hh][Tt][Tt][Pp][Ss]?://[A-Za-z0-9.-]+(:[0-9]{1,4})?(/[!-\"$-~]*)?")
MAX_NAME = 100
MAX_URI = 2_000
MAX_REDIRECT_URIS = 20
MAX_SCOPES = 50
MAX_PRODUCTS = 10
_ALPHABET = string.ascii_lowercase + string.digits


def invalid(message: str) -> ServiceError:
    return ServiceError(400, message, code="invalid_application")


@dataclass
class Application:
    client_id: str
    client_secret: str
    name: str
    redirect_uris: list[str]
    scopes: list[str]
    urn: str                      # urn:li:developerApplication:N, the authorization record's key
    refresh_tokens: bool          # programmatic refresh tokens (LinkedIn: select partners only)
    created_ms: int
    _parsed: list[tuple[str, str, str]] = field(default_factory=list, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._parsed = [_match_key(urlsplit(uri)) for uri in self.redirect_uris]

    def allows_redirect(self, uri: str) -> bool:
        """Whether ``uri`` is one of the registered redirect URLs (query parameters aside)."""
        parsed = _absolute(uri)
        return parsed is not None and _match_key(parsed) in self._parsed

    def describe(self) -> dict[str, Any]:
        return {"client_id": self.client_id, "client_secret": self.client_secret, "name": self.name,
                "redirect_uris": list(self.redirect_uris), "scopes": list(self.scopes),
                "application": self.urn, "refresh_tokens": self.refresh_tokens, "created_at": self.created_ms}

    def to_state(self) -> dict[str, Any]:
        return {"client_id": self.client_id, "client_secret": self.client_secret, "name": self.name,
                "redirect_uris": list(self.redirect_uris), "scopes": list(self.scopes), "urn": self.urn,
                "refresh_tokens": self.refresh_tokens, "created_ms": self.created_ms}


def _absolute(uri: str) -> SplitResult | None:
    """The parts of an absolute http(s) URL without a fragment, or None."""
    if not isinstance(uri, str) or len(uri) > MAX_URI or not REDIRECT_URI.fullmatch(uri):
        return None
    return urlsplit(uri)


def _match_key(parsed: SplitResult) -> tuple[str, str, str]:
    return parsed.scheme.lower(), parsed.netloc.lower(), parsed.path or "/"


def _string_list(value: Any, name: str, *, pattern: re.Pattern[str] | None, limit: int, upper: int) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise invalid(f"'{name}' must be a list of strings")
    if len(value) > upper:
        raise invalid(f"'{name}' holds more than {upper} items")
    for item in value:
        if not 1 <= len(item) <= limit or (pattern is not None and not pattern.fullmatch(item)):
            raise invalid(f"'{name}' holds an invalid value {item[:80]!r}")
    return list(dict.fromkeys(value))  # order kept, repeats once


def new_application(body: dict[str, Any], *, number: int, seed: int, now_ms: int, default_scope: str,
                    default_refresh_tokens: bool, taken: dict[str, Application]) -> Application:
    """An application from a control-plane body (validated field by field; 400/409 otherwise)."""
    unknown = sorted(set(body) - APPLICATION_FIELDS)
    if unknown:
        raise invalid(f"unknown field(s) {', '.join(unknown)}; allowed: {', '.join(sorted(APPLICATION_FIELDS))}")
    if "redirect_uris" not in body:
        raise invalid("'redirect_uris' is required: the URLs members may be sent back to after authorizing")
    redirect_uris = _string_list(body["redirect_uris"], "redirect_uris", pattern=None, limit=MAX_URI,
                                 upper=MAX_REDIRECT_URIS)
    if not redirect_uris:
        raise invalid("'redirect_uris' needs at least one URL")
    for uri in redirect_uris:
        if _absolute(uri) is None:
            raise invalid(f"redirect URL {uri[:80]!r} must be an absolute http(s) URL without a # fragment")
    products = _string_list(body.get("products", []), "products", pattern=None, limit=200, upper=MAX_PRODUCTS)
    for product in products:
        if product not in PRODUCTS:
            raise invalid(f"unknown product {product!r}; products: {', '.join(PRODUCTS)}")
    scopes = _string_list(body.get("scopes", []), "scopes", pattern=SCOPE, limit=100, upper=MAX_SCOPES)
    granted = list(dict.fromkeys([*scopes, *(s for p in products for s in PRODUCTS[p])])) or [default_scope]
    name = body.get("name", f"Test application {number + 1}")
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME:
        raise invalid(f"'name' must be a string of 1 to {MAX_NAME} characters")
    client_id = body.get("client_id", _generated(seed, "client-id", number, 14))
    if not isinstance(client_id, str) or not CLIENT_ID.fullmatch(client_id):
        raise invalid("'client_id' must be 1 to 100 letters, digits, '_' or '-'")
    if client_id in taken:
        raise ServiceError(409, f"an application with client_id {client_id!r} exists", code="application_exists")
    secret = body.get("client_secret", _generated(seed, "client-secret", number, 16))
    if not isinstance(secret, str) or not SECRET.fullmatch(secret):
        raise invalid("'client_secret' must be 1 to 200 printable ASCII characters without blanks")
    refresh = body.get("refresh_tokens", default_refresh_tokens)
    if not isinstance(refresh, bool):
        raise invalid("'refresh_tokens' must be true or false")
    urn = f"urn:li:developerApplication:{10_000_000 + mix(seed, 'developer-application', number) % 90_000_000}"
    return Application(client_id, secret, name, redirect_uris, granted, urn, refresh, now_ms)


def _generated(seed: int, kind: str, number: int, length: int) -> str:
    value = mix(seed, kind, number) | (mix(seed, kind, number, "more") << 64)
    chars = []
    for _ in range(length):
        value, digit = divmod(value, len(_ALPHABET))
        chars.append(_ALPHABET[digit])
    return "".join(chars)


def application_from_state(read: StateReader) -> Application:
    read.only(("client_id", "client_secret", "name", "redirect_uris", "scopes", "urn", "refresh_tokens",
               "created_ms"))
    uris = [item for item in read.array("redirect_uris", max_items=MAX_REDIRECT_URIS)]
    for index, uri in enumerate(uris):
        if not isinstance(uri, str) or _absolute(uri) is None:
            refuse(f"{read.where('redirect_uris')}[{index}]", "must be an absolute http(s) URL without a fragment")
    scopes = read.array("scopes", max_items=MAX_SCOPES)
    for index, scope in enumerate(scopes):
        if not isinstance(scope, str) or not SCOPE.fullmatch(scope):
            refuse(f"{read.where('scopes')}[{index}]", "must be a scope name")
    return Application(
        client_id=read.text("client_id", pattern=CLIENT_ID.pattern),
        client_secret=read.text("client_secret", pattern=SECRET.pattern),
        name=read.text("name", min_length=1, max_length=MAX_NAME), redirect_uris=uris, scopes=scopes,
        urn=read.text("urn", pattern=r"urn:li:developerApplication:[0-9]{1,12}"),
        refresh_tokens=read.boolean("refresh_tokens"),
        created_ms=read.integer("created_ms", minimum=0, maximum=MAX_EPOCH_MS))
