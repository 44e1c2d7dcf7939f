"""What a ``/call/<target>`` reaches (treg ``src/treg/api.py`` ``_resolve_call`` 9417-9520 and
``_resolve_marketplace_call``; the package's ``application/call/resolve.py``):

1. a team tool by name, ``/call/<tool>/<path>`` (the named form: a team's own tool always wins);
2. a full upstream URL: the team's tools on that host, the longest base URL on a path boundary
   (two of equal length: 409, unless exactly one came from a provider connection), else a
   catalogued provider's host; a host nobody owns is 404;
3. a catalogue id: 410 when the entry is retired (naming its successor), 400 for a missing required
   parameter, a routed capability ``<relay>.<capability>``; else 404 with ``did_you_mean``. The
   entry's own method is used upstream whatever the caller sent (treg refuses another with 400).

Plain Python; raises :class:`~fakes.relay.calls.Refusal`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import parse_json

from .accounts.keys import tool_usable
from .accounts.orgdata import ToolRow
from .callio import CallInput
from .catalogue import Entry
from .errors import Refusal
from .modelview import CatalogueLookup

if TYPE_CHECKING:
    from .teams import Membership


@dataclass(slots=True)
class Target:
    entry: Entry | None  # the catalogue entry served (None: an uncatalogued method and path)
    provider: str | None  # the catalogue's provider (None: a team tool on a host no provider owns)
    path: str  # the upstream path
    method: str  # the upstream method
    routed: bool = False
    tool: ToolRow | None = None  # the team's own tool the call goes through, when resolved here
    query_extra: str = ""  # the query a named call's path carried


def normalize_scheme(rest: str) -> str:
    """A path parameter collapses ``https://`` to ``https:/`` (treg ``_normalize_scheme``)."""
    for scheme in ("https:/", "http:/"):
        if rest.startswith(scheme) and not rest.startswith(scheme + "/"):
            return scheme + "/" + rest[len(scheme):]
    return rest


def resolve(model: CatalogueLookup, request: CallInput, member: Membership) -> Target:
    target = request.target
    org = member.team.org
    if org.tools:
        name, _, rest = target.partition("/")
        tool = org.tool_named(name)
        if tool is not None:
            return _named(model, request, tool, rest)
    lowered = target[:8].lower()
    if lowered.startswith(("http://", "https://", "http:/", "https:/")):
        return _url(model, request, member, normalize_scheme(target))
    entry = model.entry(target)
    if entry is None:
        raise Refusal(404, {"detail": f"no catalogue entry {target!r}", "error": "unknown_endpoint",
                            "hint": "search the catalogue: GET /catalog/search?q=<words>",
                            "did_you_mean": [r["id"] for r in model.search(target, 3)["results"]]})
    return catalogued(model, request, entry)


def catalogued(model: CatalogueLookup, request: CallInput, entry: Entry) -> Target:
    if entry.get("status"):
        retired_refusal(entry)
    method = entry["method"]  # the entry's method goes upstream, whatever the caller's (treg: 400 for another)
    routed = bool(entry.get("candidates"))
    from_body = routed and bool(request.body.strip())
    if from_body:
        request.params = routed_identity(entry, request)
    params = request.params
    for name, spec in entry["input"]["queryParams"].items():
        if spec["required"] and not params.get(name):
            if from_body:  # treg route.py build_plan: the identity variant is incomplete
                wanted = [n for n, s in entry["input"]["queryParams"].items() if s["required"]]
                raise Refusal(422, {"detail": f"{entry['id']} needs exactly one identity variant in the JSON body: "
                                              f"{{{', '.join(wanted)}}}", "error": "identity_incomplete",
                                    "endpoint_id": entry["id"], "variants": [wanted]})
            raise Refusal(400, {"detail": f"{entry['id']} requires --query {name}=<value>",
                                "error": "missing_parameter", "parameter": name})
    return Target(entry, None if routed else entry["provider"], entry["path"], method, routed)


def routed_identity(entry: Entry, request: CallInput) -> dict[str, str]:
    """A routed call's identity: its JSON object body over its query (treg's route.py reads the body
    as a JSON object, 400 "expects a JSON object body" otherwise; the fake keeps the query form
    too). Values are texts, numbers or booleans (as their query text); a null is no value."""
    refusal = Refusal(400, {"detail": f"{entry['id']} expects a JSON object body",
                            "error": "catalog_parameter_invalid"})
    try:
        given = parse_json(request.body)
    except ServiceError:
        raise refusal from None
    if not isinstance(given, dict):
        raise refusal
    identity = dict(request.params)
    for name, value in given.items():
        if value is None:
            continue
        if isinstance(value, bool):
            identity[name] = "true" if value else "false"
        elif isinstance(value, (str, int, float)):
            identity[name] = str(value)
        else:
            raise Refusal(400, {"detail": f"{entry['id']} expects a JSON object body of texts, numbers and booleans; "
                                          f"{name[:100]!r} is not one", "error": "catalog_parameter_invalid",
                                "parameter": name[:100]})
    return identity


def retired_refusal(entry: Entry) -> None:
    """treg ``_enforce_catalog_status``: a retired id is 410 with its migration story."""
    detail = f"{entry['id']} is {entry['status']}"
    if entry.get("status_note"):
        detail += f": {entry['status_note']}"
    detail += f" Use {entry['superseded_by']} instead." if entry.get("superseded_by") else \
        " No replacement is currently catalogued."
    raise Refusal(410, {"detail": detail, "error": "catalog_retired", "endpoint_id": entry["id"],
                        "superseded_by": entry.get("superseded_by")})


def _named(model: CatalogueLookup, request: CallInput, tool: ToolRow, rest: str) -> Target:
    base = tool.base_url.rstrip("/")
    path_part, _, query = rest.partition("?")
    url = f"{base}/{path_part.lstrip('/')}" if path_part else base
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    provider = model.provider_for_host(host)
    path = parts.path or "/"
    entry = model.entry_for_route(provider, request.method, path) if provider else None
    return Target(entry, provider, path, request.method, tool=tool, query_extra=query)


def _url(model: CatalogueLookup, request: CallInput, member: Membership, url: str) -> Target:
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
    except ValueError:
        raise Refusal(400, {"detail": f"not a valid upstream URL: {url[:200]!r}", "error": "invalid_upstream_url"}
                      ) from None
    path = parts.path or "/"
    tool = own_tool_for(member, host, url)
    provider = model.provider_for_host(host)
    if tool is None and provider is None:
        raise Refusal(404, {"detail": f"no catalogued provider owns the host {host!r} and this team registered no "
                                      "tool for it; the relay forwards only to the providers of its catalogue (GET "
                                      "/catalog/platforms) and to the team's own tools",
                            "error": "unknown_upstream_host", "host": host})
    entry = model.entry_for_route(provider, request.method, path) if provider else None
    if entry is not None and entry.get("status"):
        retired_refusal(entry)
    return Target(entry, provider, path, request.method, tool=tool)


def own_tool_for(member: Membership, host: str, url: str) -> ToolRow | None:
    """The team tool a URL goes through (None: the team has none on that host). treg filters by the
    caller's access before the longest-prefix tiebreak: a tool they cannot use can neither win nor
    cause a 409; if only such tools match, the call is the 403 naming the host."""
    org = member.team.org
    on_host = [t for t in org.tools.values() if t.host.split(":")[0] == host]
    if not on_host:
        return None

    def matches(tool: ToolRow) -> bool:
        base = tool.base_url.rstrip("/")
        return url == base or url.startswith(base + "/") or url.startswith(base + "?")

    usable = [t for t in on_host if tool_usable(member, t) and matches(t)]
    if not usable:
        if any(matches(t) for t in on_host):
            raise Refusal(403, {"detail": f"you don't have access to the registered tool for {host!r} in this team — "
                                          "an admin can grant it (dashboard → Team, or `treg org access <you> …`)",
                                "error": "tool_access_denied"})
        return None
    longest = max(len(t.base_url.rstrip("/")) for t in usable)
    top = sorted((t for t in usable if len(t.base_url.rstrip("/")) == longest), key=lambda t: t.name)
    if len(top) > 1:
        connected = [t for t in top if any(_from_connection(org, b) for b in t.bindings)]
        if len(connected) == 1:
            return connected[0]
        names = ", ".join(repr(t.name) for t in top)
        raise Refusal(409, {"detail": f"ambiguous: multiple tools match {host!r}: {names}; call one by name as "
                                      "/call/<name>/<path>", "error": "ambiguous_tool",
                            "tools": [t.name for t in top]})
    return top[0]


def _from_connection(org: Any, binding: dict[str, Any]) -> bool:
    secret = org.secrets.get(binding.get("secret_id"))
    return bool(secret is not None and secret.provider)
