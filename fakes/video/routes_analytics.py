"""Routes of analytics: aggregated metrics, breakdowns (buckets) and time series.

The figures are computed from the project's play sessions (analytics.py). A metric and
aggregation (or breakdown) that the reference does not offer is an unrecognized URL (404), as its
document lists for these operations; a query parameter out of its rules is the reference's
``request-invalid-query-parameter`` 400 naming it.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from fakes.kernel.http import JSONBytesResponse, json_response, parse_query

from .analytics import BREAKDOWNS, DEVICE_TYPES, MEDIA_TYPES, Query
from .endpoints import Api, Handler, page_of
from .geo import CONTINENTS
from .metering import parse_instant
from .problems import problem
from .projects import Project
from .videos import atom

AGGREGATIONS = {"play": ("count", "rate", "total"), "start": ("count",), "end": ("count",),
                "impression": ("count",), "impression-time": ("average", "sum"), "watch-time": ("average", "sum"),
                "ccv": ("peak", "average", "live"), "view": ("count",)}
BUCKET_METRICS = ("play", "play-rate", "play-total", "start", "end", "impression", "ccv-peak", "ccv-average", "view")
SERIES_METRICS = tuple(m for m in BUCKET_METRICS if m != "play-total")
FILTERS = {"mediaId": "media-id", "mediaType": "media-type", "continent": "continent", "country": "country",
           "deviceType": "device-type", "operatingSystem": "operating-system", "browser": "browser",
           "referrer": "referrer", "tag": "tag"}
VIEW_DURATIONS = {"3s": 3, "5s": 5, "10s": 10, "30s": 30}
INTERVALS = {"minute": 60_000, "hour": 3_600_000, "day": 86_400_000}
DAY_MS = 86_400_000
MAX_LOOKBACK_MS = 30 * DAY_MS
COMMON = ("from", "to", "unique", "viewDuration")


def bad_query(name: str, detail: str) -> Exception:
    return problem(400, "request-invalid-query-parameter", "A query parameter is invalid.", name=name[:200],
                   detail=detail)


def unrecognized(request: Request) -> Exception:
    return problem(404, "unrecognized-request-url", "Unrecognized request URL.",
                   detail=f"{request.url.path}: no such metric, aggregation or breakdown")


def routes(api: Api) -> list[BaseRoute]:
    def question(request: Request, project: Project, metric: str,
                 allowed: tuple[str, ...]) -> tuple[Query, dict[str, Any]]:
        """The timeframe, counting rules and filters of a request, and its context's timeframe."""
        model = api.model
        params = parse_query(request)
        for name in params:
            if name not in allowed and not name.startswith("filterBy["):
                raise bad_query(name, "This field was not expected.")
        now = model.clock.now_ms()
        # to is excluded; its default (and latest) value takes in what happened at this very instant,
        # so plays recorded on a manual clock that has not moved count at once
        to_ms = min(_instant(params.get("to"), "to", now + 1), now + 1)
        # at most 30 days back (an earlier from is taken as 30 days ago); a from at or after to: no data
        from_ms = max(_instant(params.get("from"), "from", max(0, to_ms - DAY_MS)), now - MAX_LOOKBACK_MS, 0)
        to_ms = max(to_ms, from_ms)
        unique = params.get("unique")
        if unique is not None and unique not in ("true", "false"):
            raise bad_query("unique", "unique must be true or false.")
        duration = params.get("viewDuration")
        if duration is not None and duration not in VIEW_DURATIONS:
            raise bad_query("viewDuration", 'This view duration is invalid. Use one of "3s", "5s", "10s", "30s".')
        if not metric.startswith(("ccv", "view")):
            unique = None  # taken with the ccv and view metrics only (ignored with the others)
        if metric != "view":
            duration = None
        filters, tag = _filters(params, total=metric == "play-total")
        tagged = model.tagged_media(project.project_id, tag) if tag is not None else None
        query = Query(from_ms, to_ms, now, unique == "true", VIEW_DURATIONS.get(duration or "5s", 5) * 1000,
                      filters, tagged)
        return query, {"from": atom(from_ms), "to": atom(to_ms)}

    def context_metric(metric: str, query: Query) -> str:
        if metric == "view":
            return ("unique-" if query.unique else "") + f"view-{query.view_ms // 1000}"
        return ("unique-" if query.unique and metric.startswith("ccv") else "") + metric

    async def metrics(request: Request, project: Project) -> Response:
        metric, aggregation = request.path_params["metric"], request.path_params["aggregation"]
        if aggregation not in AGGREGATIONS.get(metric, ()):
            raise unrecognized(request)
        inner = {"rate": "play-rate", "total": "play-total"}.get(aggregation, metric) if metric == "play" else metric
        query, timeframe = question(request, project, inner, COMMON)
        value = api.model.analytics_value(project.project_id, inner, aggregation, query)
        return json_response({"context": {"metric": context_metric(metric, query), "aggregation": aggregation,
                                          "timeframe": timeframe}, "data": value})

    def split(metric: str) -> tuple[str, str]:
        return ("ccv", metric.removeprefix("ccv-")) if metric.startswith("ccv-") else (metric, "count")

    async def buckets(request: Request, project: Project) -> Response:
        metric, breakdown = request.path_params["metric"], request.path_params["breakdown"]
        if metric not in BUCKET_METRICS or breakdown not in BREAKDOWNS or \
                (metric == "play-total" and breakdown != "media-id"):
            raise unrecognized(request)
        paging = api.paging(request)
        query, timeframe = question(request, project, metric,
                                    (*COMMON, "sortBy", "sortOrder", "currentPage", "pageSize"))
        sort_by = _choice(request, "sortBy", ("metricValue", "dimensionValue")) or "metricValue"
        descending = (_choice(request, "sortOrder", ("asc", "desc")) or "desc") == "desc"
        inner, aggregation = split(metric)
        model = api.model
        model.catch_up()
        dimension = BREAKDOWNS[breakdown]
        values = sorted({dimension(s) for s in model.analytics.chosen(project.project_id, query,
                                                                      timeframe=metric != "play-total",
                                                                      overlap=inner == "ccv")})
        rows: list[dict[str, Any]] = []
        for value in values:
            narrowed = Query(query.start_ms, query.end_ms, query.now_ms, query.unique, query.view_ms,
                             (*query.filters, (breakdown, frozenset({value}))), query.tagged)
            rows.append({"dimensionValue": value,
                         "metricValue": model.analytics.value(project.project_id, inner, aggregation, narrowed)})
        if sort_by == "metricValue":
            rows.sort(key=lambda r: (-r["metricValue"] if descending else r["metricValue"], r["dimensionValue"]))
        else:
            rows.sort(key=lambda r: r["dimensionValue"], reverse=descending)
        body = page_of(rows, paging, request, request.scope["path"], api.base_of(request))
        context = {"metric": context_metric(metric, query), "breakdown": breakdown, "timeframe": timeframe}
        return json_response({"context": context, **body})

    async def timeseries(request: Request, project: Project) -> Response:
        metric = request.path_params["metric"]
        if metric not in SERIES_METRICS:
            raise unrecognized(request)
        paging = api.paging(request)
        query, timeframe = question(request, project, metric,
                                    (*COMMON, "interval", "sortBy", "sortOrder", "currentPage", "pageSize"))
        span = query.end_ms - query.start_ms
        interval = _choice(request, "interval", tuple(INTERVALS)) or ("hour" if span <= 2 * DAY_MS else "day")
        if interval == "minute" and span > 60 * 60_000:
            raise bad_query("interval", "This interval cannot be used with a timeframe over 60 minutes.")
        sort_by = _choice(request, "sortBy", ("metricValue", "emittedAt")) or "emittedAt"
        descending = _choice(request, "sortOrder", ("asc", "desc")) == "desc"
        inner, aggregation = split(metric)
        model = api.model
        model.catch_up()
        step = INTERVALS[interval]
        rows: list[dict[str, Any]] = []
        cursor = query.start_ms - query.start_ms % step
        while cursor < query.end_ms:
            window = Query(max(cursor, query.start_ms), min(cursor + step, query.end_ms), query.now_ms, query.unique,
                           query.view_ms, query.filters, query.tagged)
            rows.append({"emittedAt": atom(cursor),
                         "metricValue": model.analytics.value(project.project_id, inner, aggregation, window)})
            cursor += step
        if sort_by == "metricValue":
            rows.sort(key=lambda r: r["metricValue"], reverse=descending)
        elif descending:
            rows.reverse()
        body = page_of(rows, paging, request, request.scope["path"], api.base_of(request))
        context = {"metric": context_metric(metric, query), "interval": interval, "timeframe": timeframe}
        return json_response({"context": context, **body})

    def remembered(handler: Handler) -> Handler:
        """The handler's answer kept until a session or a video changes, per exact request (path,
        query, base) and instant: computing a day of hourly windows scans the sessions 25 times."""
        async def answer(request: Request, project: Project) -> Response:
            model = api.model
            model.catch_up()
            scope = request.scope
            key = (project.project_id, scope["path"], scope.get("query_string", b""), api.base_of(request),
                   model.clock.now_ms(), model.version)
            found = model.analytics.remembered(key)
            if found is not None:
                return JSONBytesResponse(found)
            response = await handler(request, project)  # a refusal raises: only answers are kept
            model.analytics.remember(key, bytes(response.body))
            return response
        return answer

    return [
        api.route("/data/metrics/{metric}/{aggregation}", {"GET": remembered(metrics)}),
        api.route("/data/buckets/{metric}/{breakdown}", {"GET": remembered(buckets)}),
        api.route("/data/timeseries/{metric}", {"GET": remembered(timeseries)}),
    ]


def _choice(request: Request, name: str, choices: tuple[str, ...]) -> str | None:
    value = parse_query(request).get(name)
    if value is not None and value not in choices:
        raise bad_query(name, f"{name} must be one of {', '.join(choices)}.")
    return value


def _instant(raw: str | None, name: str, default: int) -> int:
    if raw is None:
        return default
    found = parse_instant(raw, clamp=True) if len(raw) <= 40 else None
    if found is None:
        raise bad_query(name, f"{name} must be an ATOM date-time, e.g. 2024-02-05T00:00:00+01:00.")
    return found


def _filters(params: Any, *, total: bool) -> tuple[tuple[tuple[str, frozenset[str]], ...], str | None]:
    """The ``filterBy[...]`` parameters (``filterBy[country][]=FR`` and ``filterBy[country]=FR`` alike)."""
    found: dict[str, set[str]] = {}
    tag = None
    for key, value in params.multi_items():
        if not key.startswith("filterBy["):
            continue
        name = key[len("filterBy["):].partition("]")[0]
        if name not in FILTERS:
            raise bad_query(key, "This field was not expected.")
        if len(value) > 2048:
            raise bad_query(key, "This value should not contain more than 2048 characters.")
        checks = {"mediaType": MEDIA_TYPES, "continent": (*CONTINENTS, "AZ"), "deviceType": DEVICE_TYPES}
        if name in checks and value not in checks[name]:
            raise bad_query(key, f"must be one of {', '.join(checks[name])}.")
        if name == "country" and not (len(value) == 2 and value.isascii() and value.isalpha() and value.isupper()):
            raise bad_query(key, "must be an ISO-3166 alpha-2 country code, e.g. FR.")
        if total and name not in ("mediaId", "mediaType"):
            continue  # play-total takes the mediaId and mediaType filters only; the others do not apply
        if name == "tag":
            tag = value
        else:
            found.setdefault(FILTERS[name], set()).add(unquote(value) if name == "referrer" and "%" in value
                                                       else value)
    return tuple((name, frozenset(values)) for name, values in found.items()), tag
