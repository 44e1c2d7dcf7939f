"""``/llms.txt`` and ``/llms-full.txt``: the machine-readable reference, generated from the route table."""

from __future__ import annotations

import functools

from .operations import CONSUME_TOOL, OPERATIONS, Operation
from .settings import PLANS, EnrichmentSettings


def _line(op: Operation) -> str:
    also = f" (also {', '.join(op.real_paths)})" if op.real_paths else ""
    return f"- {op.method} {op.seed_path}{also}: {op.summary}. Cost: {op.cost}."


@functools.lru_cache(maxsize=8)
def _cached(kind: str, header: str, frozen: tuple[tuple[str, str], ...]) -> str:
    lines = ["# Company and person enrichment API (contract fake)", "",
             "> Company and person data from public web sources, billed in credits. Authentication: "
             "`Authorization: Bearer <API_KEY>`; every parameter is a query parameter; every response "
             f"states its cost in the `{header}` header.", "", "## Operations", ""]
    lines += [_line(op) for op in OPERATIONS]
    lines += ["", "## Machine-readable", "", "- GET /openapi.json: the OpenAPI 3.0 description",
              "- GET /llms-full.txt: this reference with parameters, errors, limits and the MCP tools",
              "- MCP over server-sent events: GET /mcp/sse?api_key=<API_KEY>"]
    if kind == "full":
        settings = dict(frozen)
        lines += ["", "## Parameters", ""]
        for op in OPERATIONS:
            lines.append(f"### {op.method} {op.seed_path}")
            for param in op.params:
                if param.deprecated:
                    lines.append(f"- `{param.name}`: deprecated, refused with a 400 ({param.deprecated})")
                    continue
                extra = f" one of {', '.join(param.enum)};" if param.enum else ""
                extra += f" {param.minimum}-{param.maximum};" if param.minimum is not None else ""
                lines.append(f"- `{param.name}` ({param.kind}{', required' if param.required else ''};{extra} "
                             f"{param.description})")
            if op.body:
                lines.append(f"- JSON body: {op.body}")
            lines.append(f"- Read timeout: {op.timeout_s} s; rate-limit bucket: {op.bucket}")
            if op.tool:
                lines.append(f"- MCP tool: `{op.tool}`")
            lines.append("")
        lines += [
            "## Errors (body `{\"error\": \"<message>\"}`)", "",
            "- 400: missing or invalid parameter (never charged)",
            "- 401: missing or unknown API key",
            "- 403: out of credits (nothing charged), or the trial has ended",
            "- 404: unknown company, person or feed (not charged)",
            "- 410: a retired path (never charged)",
            "- 429: rate limited; headers Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset",
            "- 503: a live lookup failed for now (work email, person profile, similar people, employee search, "
            "product listing; never charged): retry after Retry-After",
            "- Funding answers a lookup without data as 200 with `error_code: no_funding_data` (the base "
            "charged) and a transient failure as 200 with `error_code: service_temp_unavailable` (free)",
            "", "## Billing", "",
            "1. Failed requests are never charged.",
            f"2. A successful paid call costs at least {settings['minimum_charge']} credits.",
            f"3. The same request on the same cached record within {settings['cache_window_days']} days "
            "(use_cache=if-recent, the default) costs 0.",
            f"4. Every response states its cost in `{header}`.",
            "", "## Plans and limits", "",
            f"- Plans: {', '.join(PLANS)}. Trial: {settings['trial_days']} days, {settings['trial_credits']} credits.",
            f"- Packs from ${settings['pack_min_usd']}: the smallest expires after "
            f"{settings['small_pack_expiry_days']} days, larger ones after {settings['large_pack_expiry_days']}; "
            "a purchase extends unexpired credits.",
            f"- Paid endpoints: {settings['paid_per_minute']} requests a minute; free endpoints: "
            f"{settings['free_per_minute']} a minute by plan.",
            "", "## MCP tools", "",
            *[f"- `{op.tool}`: {op.summary}" for op in OPERATIONS if op.tool],
            f"- `{CONSUME_TOOL}`: the items of a feed that are new since the last consumption, once",
        ]
    return "\n".join(lines) + "\n"


def _frozen(settings: EnrichmentSettings) -> tuple[tuple[str, str], ...]:
    return tuple((name, str(value)) for name, value in sorted(settings.to_dict().items()))


def llms_txt(settings: EnrichmentSettings) -> str:
    return _cached("short", settings.cost_header, _frozen(settings))


def llms_full_txt(settings: EnrichmentSettings) -> str:
    return _cached("full", settings.cost_header, _frozen(settings))
