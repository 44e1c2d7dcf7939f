"""The plain-text indexes (``/use-cases``, ``/workflows``, ``/tools/<provider>``; Markdown with
``.md`` appended), the setup brief ``/llms.txt`` and the installer ``/install.sh``.

Use-case success rates are measured from the calls this fake has answered (``-`` before any).
"""

from __future__ import annotations

from starlette.responses import Response

from fakes.kernel.errors import ServiceError

from .served import ServedRelay

PATHS = ["/llms.txt", "/use-cases", "/use-cases.md", "/workflows", "/workflows.md", "/install.sh"]

WORKFLOWS = [
    ("enrich-leads", "Enrich leads at a company", ["firmdata.companies.enrich", "firmdata.companies.people.list",
                                                  "mailscout.people.email.find", "mailscout.email.verify"]),
    ("profile-to-email", "From a profile address to a verified work email",
     ["profilescope.people.profile.get", "profilescope.people.email.from-profile", "mailscout.email.verify"]),
]


def _price(cost: dict[str, object] | None) -> str:
    if cost is None:
        return "no published price (own key only)"
    value = int(str(cost["value"]))
    return f"${value / 1_000_000:.4f} {cost['type']}" if cost["type"] != "free" else "free"


def use_cases(fake: ServedRelay, markdown: bool) -> str:
    """The page, worked out again only when the catalogue or a listed endpoint's counts changed."""
    model = fake.model
    stats = model.stats
    counts = [count for entry_id in model.curated_ids() for count in stats.get(entry_id, _NONE)]
    return model.with_facts(("use-cases", markdown), counts, lambda: _use_cases(fake, markdown))


_NONE = (0, 0)


def _use_cases(fake: ServedRelay, markdown: bool) -> str:
    model = fake.model
    lines = ["# Use cases" if markdown else "USE CASES", "",
             "Providers per job, compared on price and on the success rate measured from the calls this relay "
             "has answered.", ""]
    for capability, entries in model.curated_groups():  # kept until the catalogue changes
        lines.append(f"## {capability}" if markdown else f"{capability}:")
        if markdown:
            lines += ["", "| endpoint | price | measured success |", "|---|---|---|"]
        for entry in entries:
            calls, hits = model.stats.get(str(entry["id"]), [0, 0])
            rate = f"{hits / calls:.0%} of {calls}" if calls else "-"
            price = _price(entry["cost"])
            lines.append(f"| `{entry['id']}` | {price} | {rate} |" if markdown else
                         f"  {entry['id']:<45} {price:<34} success {rate}")
        lines.append("")
    return "\n".join(lines)


_WORKFLOW_STEPS = frozenset(entry_id for _slug, _title, steps in WORKFLOWS for entry_id in steps)


def workflows(fake: ServedRelay, markdown: bool) -> str:
    """The page, worked out again only when the catalogue or a step's receipt changed."""
    receipts = fake.model.calls.receipts(_WORKFLOW_STEPS)
    return fake.model.with_facts(("workflows", markdown), receipts, lambda: _workflows(fake, markdown, receipts))


def _workflows(fake: ServedRelay, markdown: bool, receipts: dict[str, tuple[int, int]]) -> str:
    model = fake.model
    lines = ["# Workflows" if markdown else "WORKFLOWS", "", "Chained jobs, with the receipt of the last run on "
             "this relay (calls answered and micro-USD charged per step).", ""]
    for slug, title, steps in WORKFLOWS:
        lines.append(f"## {title} (`{slug}`)" if markdown else f"{title} ({slug}):")
        for number, entry_id in enumerate(steps, 1):
            entry = model.entry(entry_id)
            calls, charged = receipts.get(entry_id, (0, 0))
            receipt = f"{calls} calls, {charged} micro charged" if calls else "not run yet"
            price = _price(entry["cost"]) if entry else "-"
            lines.append(f"{number}. `{entry_id}`: {price}; receipt: {receipt}" if markdown else
                         f"  {number}. {entry_id}  {price}  receipt: {receipt}")
        lines.append("")
    return "\n".join(lines)


def tools(fake: ServedRelay, provider: str, markdown: bool) -> str:
    model = fake.model
    prov = model.provider(provider)
    entries = model.entries_of(provider)  # kept until the catalogue changes
    if prov is None and not entries:
        raise ServiceError(404, f"no provider {provider!r}", code="not_found")
    title = prov["display_name"] if prov else provider
    lines = [f"# {title} tools" if markdown else f"{title.upper()} TOOLS", "",
             f"{len(entries)} endpoints; call one with GET /call/<id>?<params> and header {model.h.token}.", ""]
    if markdown:
        lines += ["| id | method | price | summary |", "|---|---|---|---|"]
    for entry in entries:
        lines.append(f"| `{entry['id']}` | {entry['method']} | {_price(entry['cost'])} | {entry['summary']} |"
                     if markdown else f"  {entry['id']:<50} {entry['method']:<5} {_price(entry['cost'])}")
    return "\n".join(lines) + "\n"


def llms(fake: ServedRelay) -> str:
    model = fake.model
    h = model.h
    providers = len(model.all_providers())
    endpoints = len(model.all_entries())
    return f"""# Call relay (contract fake)

> One token, {endpoints:,} catalogued endpoints across {providers} providers. Each call is metered from a
> prepaid balance at the provider's own rate, without markup. A lookup that finds nothing is free.
> New teams start with $1.00 (1,000,000 micro-USD).

## Calling
- `GET|POST /call/<catalog_id>?<params>` with header `{h.token}: <token>`; the relay picks the credential:
  your team's own tool, then its stored secret, then the relay's key (only that one is billed).
- `GET|POST /call/<full upstream URL>`: method, path, query and body forwarded unchanged.
- `Idempotency-Key` makes a retry safe; `{h.body_encoding}: base64` gets SQL or HTML past the firewall.
- Answers carry `{h.call_id}`; metered ones `{h.cost}` (integer micro-USD).
- 402 insufficient balance, 503 `proxy_saturated` with `Retry-After`, 403 from the web firewall.

## Indexes
- [Use cases](/use-cases.md): providers per job, price and measured success rate
- [Workflows](/workflows.md): chained jobs with receipts
- Tools per provider: `/tools/<provider>.md`, e.g. [/tools/mailscout.md](/tools/mailscout.md)
- Catalogue API: `/catalog/search?q=`, `/catalog/endpoints/<id>`, `/catalog/platforms`; `/openapi.json`
- Connector (MCP, streamable HTTP): `/mcp/v2/`
- Command-line client installer: [/install.sh](/install.sh)
"""


def install_script(fake: ServedRelay) -> str:
    h = fake.model.h
    env = "TREG" if fake.settings.relay_name == "treg" else fake.settings.relay_name.upper()
    return f"""#!/bin/sh
# Installer of the relay's command-line client, as served by the contract fake.
# This fake's installer downloads nothing: it only checks for Python and prints what to run.
set -eu

echo "relay fake: this installer downloads nothing."
if command -v python3 >/dev/null 2>&1; then
    echo "found $(python3 --version 2>&1)"
else
    echo "python3 not found: the command-line client needs Python >= 3.12" >&2
fi
echo "to use the real client against this fake (it needs Python >= 3.12):"
echo "  pip install tools-registry"
echo "  export {env}_URL=<this fake's base URL>"
echo "  export {env}_TOKEN=<a team token from fakes serve or POST /_fake/teams>"
echo "the relay reads the token from the {h.token} header."
exit 0
"""


def render(fake: ServedRelay, path: str) -> Response:
    markdown = path.endswith(".md")
    stem = path[:-3] if markdown else path
    if stem == "/llms.txt":
        return Response(llms(fake), media_type="text/plain; charset=utf-8")
    if stem == "/install.sh":
        return Response(install_script(fake), media_type="text/x-shellscript; charset=utf-8")
    if stem == "/use-cases":
        text = use_cases(fake, markdown)
    elif stem == "/workflows":
        text = workflows(fake, markdown)
    elif stem.startswith("/tools/"):
        provider = stem[len("/tools/"):]
        text = fake.model.catalogue_text(("tools", provider, markdown), lambda: tools(fake, provider, markdown))
    else:
        raise ServiceError(404, f"no page {path}", code="not_found")
    return Response(text, media_type=("text/markdown" if markdown else "text/plain") + "; charset=utf-8")
