"""The service router answers exactly as Starlette's Router would, and remembers its matches."""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlsplit

import pytest
from starlette.background import BackgroundTask
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Mount, Route, Router

from fakes.kernel import routing
from fakes.kernel.routing import ServiceRouter


async def item(request: Request) -> Response:
    request.path_params["touched"] = True  # an endpoint may change its own copy
    return JSONResponse({"item": request.path_params["item_id"], "method": request.method})


async def item_post_only(request: Request) -> Response:
    return PlainTextResponse("post")


async def static(request: Request) -> Response:
    return PlainTextResponse(f"static {request.url.path}")


def sync_endpoint(request: Request) -> Response:  # Starlette runs it in a thread
    return PlainTextResponse("sync")


async def broken(request: Request) -> Response:
    raise ValueError("boom")


async def inner(request: Request) -> Response:
    return PlainTextResponse(f"mounted {request.path_params['name']}")


class AsgiEndpoint:
    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await PlainTextResponse("asgi")(scope, receive, send)


def routes() -> list[Any]:
    return [
        Route("/items/{item_id:int}", item_post_only, methods=["POST"]),  # partial for GET, then...
        Route("/items/{item_id:int}", item, methods=["GET"]),  # ...a full match further down
        Route("/items/special", static),  # never reached for GET: the int convertor refuses it
        Route("/static", static),
        Route("/sync", sync_endpoint),
        Route("/broken", broken),
        Route("/asgi", AsgiEndpoint()),
        Mount("/mounted", routes=[Route("/{name}", inner)]),
    ]


def _scope(method: str, path: str, root_path: str = "") -> dict[str, Any]:
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
            "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
            "root_path": root_path, "headers": [(b"host", b"test")], "server": ("test", 80),
            "client": ("127.0.0.1", 1), "app": object()}  # "app" in scope: 404/405 raise, as in FakeApp


async def _no_body() -> dict[str, Any]:
    return {"type": "http.request", "body": b"", "more_body": False}


def call(app: Any, method: str, path: str, root_path: str = "") -> tuple[int, bytes, dict[str, Any]]:
    scope = _scope(method, path, root_path)
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def run() -> None:
        await app(scope, receive, send)

    asyncio.run(run())
    status = sent[0]["status"]
    body = b"".join(m.get("body", b"") for m in sent[1:])
    return status, body, scope


REQUESTS = [("GET", "/items/7"), ("POST", "/items/7"), ("GET", "/items/special"), ("GET", "/static"),
            ("GET", "/sync"), ("GET", "/asgi"), ("GET", "/mounted/x")]


@pytest.mark.parametrize(("method", "path"), REQUESTS)
def test_same_answer_as_starlette_first_and_remembered(method: str, path: str) -> None:
    expected = call(Router(routes=routes()), method, path)[:2]
    router = ServiceRouter(routes())
    assert call(router, method, path)[:2] == expected  # matched
    assert call(router, method, path)[:2] == expected  # remembered


def test_each_kind_of_response_sends_the_messages_starlette_sends(monkeypatch: pytest.MonkeyPatch) -> None:
    """The router sends a plain response's two messages itself; a stream and a response with a
    background task send themselves (the task runs after the answer, once)."""
    ran: list[str] = []

    async def plain(request: Request) -> Response:
        return Response(b"raw", 201, {"X-A": "1"}, media_type="application/octet-stream")

    async def streamed(request: Request) -> Response:
        async def parts() -> Any:
            yield b"a"
            yield b"b"
        return StreamingResponse(parts(), media_type="text/plain")

    async def later(request: Request) -> Response:
        return PlainTextResponse("later", background=BackgroundTask(ran.append, "task"))

    kinds = [Route("/plain", plain), Route("/json", item_json), Route("/stream", streamed), Route("/later", later)]

    def messages(app: Any, path: str) -> list[dict[str, Any]]:
        sent: list[dict[str, Any]] = []
        scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(), "query_string": b"",
                 "root_path": "", "headers": [], "app": object()}

        async def receive() -> dict[str, Any]:
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        asyncio.run(app(scope, receive, send))
        return sent

    for path in ("/plain", "/json", "/stream", "/later"):
        expected = messages(Router(routes=kinds), path)
        router = ServiceRouter(kinds)
        assert messages(router, path) == expected  # matched
        assert messages(router, path) == expected  # remembered
    assert ran == ["task"] * 3
    # the plain answers' messages come from the router, not from Response.__call__
    called: list[str] = []
    plain_call = Response.__call__

    async def counted(self: Response, scope: Any, receive: Any, send: Any) -> None:
        called.append(scope["path"])
        await plain_call(self, scope, receive, send)

    monkeypatch.setattr(Response, "__call__", counted)
    monkeypatch.setattr(routing, "_PLAIN_CALL", counted)
    assert messages(ServiceRouter(kinds), "/plain") == messages(Router(routes=kinds), "/plain")
    assert called == ["/plain"]  # Starlette's router's only


async def item_json(request: Request) -> Response:
    return JSONResponse({"ok": True}, headers={"X-B": "2"})


def test_a_new_path_tries_only_the_routes_of_its_first_segment_in_starlettes_order() -> None:
    """Routes whose first segment is a parameter stay candidates of every path, in their place: the
    first route Starlette would pick is picked (here a parameter route before a literal one)."""
    async def named(request: Request) -> Response:
        return PlainTextResponse(f"{request.scope['route'].path} {sorted(request.path_params.items())}")

    table = [Route("/{first}/x", named), Route("/a/x", named), Route("/a/{id}", named), Route("/b/{id}", named),
             Route("/", named), Route("/files{ext}", named), Mount("/m", routes=[Route("/{name}", named)]),
             Route("/{rest:path}", named, methods=["POST"])]
    paths = ["/a/x", "/a/7", "/b/7", "/c/x", "/", "/files.txt", "/m/n", "/zz/q", "/a", "/b/7/8"]
    for method in ("GET", "POST"):
        for path in paths:
            try:
                expected: Any = call(Router(routes=table), method, path)[:2]
            except HTTPException as exc:
                expected = exc.status_code
            router = ServiceRouter(table)
            for _ in range(2):  # matched, then remembered
                try:
                    got: Any = call(router, method, path)[:2]
                except HTTPException as exc:
                    got = exc.status_code
                assert got == expected, (method, path)
    # and only those are tried: a route of another first segment is never asked
    asked: list[str] = []

    class Counted(Route):
        def matches(self, scope: Any) -> Any:
            asked.append(scope["path"])
            return super().matches(scope)

    router = ServiceRouter([Counted("/a/{id}", named), *table])
    call(router, "GET", "/b/7")
    call(router, "GET", "/a/8")
    assert asked == ["/a/8"]
    by_segment, anywhere = routing.route_segments(table)
    assert [route.path for route in by_segment["b"]] == ["/{first}/x", "/b/{id}", "/files{ext}", "/{rest:path}"]
    assert [route.path for route in anywhere] == ["/{first}/x", "/files{ext}", "/{rest:path}"]
    assert set(by_segment) == {"a", "b", "", "m"}


def test_misses_and_wrong_methods_raise_as_starlette_does() -> None:
    router = ServiceRouter(routes())
    with pytest.raises(HTTPException) as missing:
        call(router, "GET", "/nowhere")
    assert missing.value.status_code == 404
    with pytest.raises(HTTPException) as wrong_method:
        call(router, "DELETE", "/static")
    assert wrong_method.value.status_code == 405
    assert wrong_method.value.headers is not None and "GET" in wrong_method.value.headers["Allow"]
    assert router._remembered == {}  # only full matches of plain routes are remembered


def test_endpoint_errors_reach_the_caller_unwrapped() -> None:
    router = ServiceRouter(routes())
    for _ in range(2):
        with pytest.raises(ValueError, match="boom"):
            call(router, "GET", "/broken")


def test_scope_is_what_starlette_sets_and_path_params_are_per_request() -> None:
    router = ServiceRouter(routes())
    first = call(router, "GET", "/items/7")[2]
    second = call(router, "GET", "/items/7")[2]
    assert second["route"] is router.routes[1]
    assert second["endpoint"] is item
    assert second["router"] is router
    assert second["path_params"] == {"item_id": 7, "touched": True}
    assert first["path_params"] is not second["path_params"]
    key = ("GET", "", "/items/7")
    assert "touched" not in router._remembered[key][2]


def test_root_path_is_part_of_the_key() -> None:
    router = ServiceRouter(routes())
    assert call(router, "GET", "/base/static", root_path="/base")[:2] == (200, b"static /base/static")
    with pytest.raises(HTTPException):
        call(router, "GET", "/base/static")  # the same path without the mount is not the same route


def test_the_table_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(routing, "MAX_REMEMBERED", 3)
    router = ServiceRouter(routes())
    for item_id in range(10):
        assert call(router, "GET", f"/items/{item_id}")[0] == 200
        assert len(router._remembered) <= 3


def test_query_parameters_are_parsed_once_per_query_string_and_never_shared_mutably() -> None:
    from starlette.datastructures import QueryParams

    from fakes.kernel import http

    def request(query: bytes) -> Request:
        return Request({"type": "http", "method": "GET", "path": "/", "query_string": query, "headers": []})

    first = http.parse_query(request(b"a=1&b=%20x&a=2"))
    again = http.parse_query(request(b"a=1&b=%20x&a=2"))
    assert again is first and isinstance(first, QueryParams)  # immutable: safe to share
    assert first.getlist("a") == ["1", "2"] and first["b"] == " x"
    assert http.parse_query(request(b"a=3"))["a"] == "3"
    # its get is the dict's own (the Mapping mixin's costs a microsecond a call): Starlette's answers
    for raw in ("a=1&b=%20x&a=2", "a=1&b=x&a=2", "", "a=&b", "c=%E2%82%AC+1"):
        ours, theirs = http.parse_query(request(raw.encode())), QueryParams(raw)
        assert isinstance(ours, http.ParsedQuery) and isinstance(ours, QueryParams)
        for name in ("a", "b", "c", "zz"):
            assert ours.get(name) == theirs.get(name) and ours.get(name, "-") == theirs.get(name, "-")
            assert (name in ours) == (name in theirs)
        assert ours == theirs and theirs == ours and (ours != theirs) is False and str(ours) == str(theirs)
        assert ours.multi_items() == theirs.multi_items() and dict(ours.items()) == dict(theirs.items())
    assert http.parse_query(request(b"a=1")) != QueryParams("a=2") and http.parse_query(request(b"a=1")) != {"a": "1"}


def test_bearer_token_reads_the_first_authorization_header() -> None:
    from fakes.kernel.http import bearer_token

    def request(*headers: tuple[bytes, bytes]) -> Request:
        return Request({"type": "http", "method": "GET", "path": "/", "query_string": b"", "headers": list(headers)})

    assert bearer_token(request((b"authorization", b"Bearer  abc "), (b"authorization", b"Bearer other"))) == "abc"
    assert bearer_token(request((b"authorization", b"Basic abc"))) is None
    assert bearer_token(request((b"authorization", b"Bearer "))) is None
    assert bearer_token(request()) is None
    # or the request's ASGI scope, read the same way
    assert bearer_token(request((b"authorization", b"Bearer  abc ")).scope) == "abc"
    assert bearer_token({"type": "http", "headers": []}) is None
    # each header value is parsed once (answers come from the table again), long ones every time
    from fakes.kernel import http

    for _ in range(2):
        assert bearer_token(request((b"authorization", b"bearer tok-1"))) == "tok-1"
        assert bearer_token(request((b"authorization", b"Basic x"))) is None
    assert http._BEARERS[b"bearer tok-1"] == "tok-1" and http._BEARERS[b"Basic x"] is None
    long_value = b"Bearer " + b"t" * http.MAX_REMEMBERED_BEARER
    assert bearer_token(request((b"authorization", long_value))) == "t" * http.MAX_REMEMBERED_BEARER
    assert long_value not in http._BEARERS


@pytest.mark.parametrize("scope", [
    {"headers": [(b"host", b"fake.test:8080")]},
    {"headers": [(b"host", b"fake.test")], "scheme": "https", "root_path": "/enrichment"},
    {"headers": [], "server": ("127.0.0.1", 80)},
    {"headers": [], "server": ("127.0.0.1", 8123), "root_path": "/a", "app_root_path": "/b"},
    {"headers": [], "server": ("::1", 443), "scheme": "https"},
    {"headers": [(b"host", b"bad:port")], "server": ("127.0.0.1", 9000)},
])
def test_base_url_is_starlettes_without_its_last_slash_and_each_host_is_worked_out_once(scope: dict[str, Any]) -> None:
    from fakes.kernel import http

    full = {"type": "http", "method": "GET", "path": "/x", "query_string": b"", **scope}
    expected = str(Request(full).base_url).rstrip("/")
    assert http.base_url(full) == http.base_url(dict(full)) == expected
    host = dict(scope["headers"]).get(b"host")
    taken = host is None or urlsplit(expected).netloc == host.decode()
    assert (expected in http._BASE_URLS.values()) == taken  # a Host Starlette does not take: not kept


def test_the_base_url_table_is_bounded() -> None:
    from fakes.kernel import http

    for n in range(http.MAX_REMEMBERED_BASES + 10):
        assert http.base_url({"type": "http", "headers": [(b"host", f"h{n}.test".encode())]}) == f"http://h{n}.test"
    assert len(http._BASE_URLS) <= http.MAX_REMEMBERED_BASES
    long_host = b"h" * (http.MAX_REMEMBERED_BEARER + 1)
    assert http.base_url({"type": "http", "headers": [(b"host", long_host)]}) == "http://" + long_host.decode()
    assert not any(key[0] == long_host for key in http._BASE_URLS)


def test_header_value_is_the_first_as_starlette_gives_it() -> None:
    from fakes.kernel.http import header_value

    request = Request({"type": "http", "method": "GET", "path": "/", "query_string": b"",
                       "headers": [(b"authorization", b"Basic \xe9"), (b"authorization", b"Bearer x")]})
    assert header_value(request, b"authorization") == request.headers.get("authorization") == "Basic \xe9"
    assert header_value(request, b"host") is request.headers.get("host") is None


def test_a_header_named_by_a_setting_is_read_as_starlette_reads_it() -> None:
    from fakes.kernel.http import named_header

    request = Request({"type": "http", "method": "GET", "path": "/", "query_string": b"",
                       "headers": [(b"x-api-key", b"k1"), (b"x-api-key", b"k2"), (b"linkedin-version", b"202312")]})
    for name in ("X-API-Key", "x-api-key", "X-Api-Key", "LinkedIn-Version", "X-Missing"):
        assert named_header(request, name) == request.headers.get(name), name
    assert named_header(request, "X-API-Key") == "k1"  # the first of a repeated header


def test_long_paths_and_queries_are_answered_but_not_remembered() -> None:
    from fakes.kernel import http

    router = ServiceRouter(routes())
    long_id = "1" * (routing.MAX_REMEMBERED_PATH + 10)
    assert call(router, "GET", f"/items/{long_id}")[0] == 200
    assert router._remembered == {}
    long_query = b"q=" + b"x" * (http.MAX_REMEMBERED_QUERY + 10)
    request = Request({"type": "http", "method": "GET", "path": "/", "query_string": long_query, "headers": []})
    assert http.parse_query(request)["q"] == "x" * (http.MAX_REMEMBERED_QUERY + 10)
    assert long_query not in http._QUERIES


def test_json_bytes_response_sends_what_starlette_would() -> None:
    from fakes.kernel.http import JSONBytesResponse

    body = b'{"a":[1,2]}'
    assert JSONBytesResponse(body, 201).raw_headers == Response(body, 201, media_type="application/json").raw_headers


@pytest.mark.parametrize("headers", [None, {"X-Cost": "0"}, {"X-B": "2", "Retry-After": "3"},
                                     {"Content-Type": "application/problem+json"}, {"content-length": "9"}])
@pytest.mark.parametrize("status", [200, 201, 204, 401, 429])
def test_json_response_with_or_without_headers_sends_what_starlette_would(headers: dict[str, str] | None,
                                                                          status: int) -> None:
    from fakes.kernel.http import JSONResponse as KernelJSONResponse

    for _ in range(2):  # built, then copied from the encoded lists
        ours = KernelJSONResponse({"detail": "x"}, status, headers)
        theirs = Response(ours.body, status, headers, media_type="application/json")
        assert ours.raw_headers == theirs.raw_headers and ours.body == b'{"detail":"x"}'
    ours.raw_headers.append((b"x-later", b"1"))  # a caller extends its own list, not the remembered one
    assert (b"x-later", b"1") not in KernelJSONResponse({"detail": "x"}, status, headers).raw_headers


def test_a_mount_is_remembered_and_routed_as_starlette_routes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    router = ServiceRouter(routes())
    tried: list[str] = []
    original = Route.matches

    def counting(self: Route, scope: Any) -> Any:
        tried.append(self.path)
        return original(self, scope)

    monkeypatch.setattr(Route, "matches", counting)
    expected_status, expected_body, expected_scope = call(Router(routes=routes()), "GET", "/mounted/x")
    first = call(router, "GET", "/mounted/x")
    tried.clear()
    again = call(router, "GET", "/mounted/x")
    assert first[:2] == again[:2] == (expected_status, expected_body) == (200, b"mounted x")
    assert "/items/{item_id:int}" not in tried  # the routes before the mount are not tried again
    for key in ("root_path", "path_params", "app_root_path"):
        assert again[2].get(key) == expected_scope.get(key)


def test_a_plain_answer_is_recorded_in_the_journal_exchange_without_its_send(monkeypatch: pytest.MonkeyPatch) -> None:
    """When ``send`` is a journal exchange's own, the router records a plain answer in it at once and
    sends through the server's send (no wrapped call per message); a body the route left unread
    (kept by the journal) still goes through the exchange's send, which reads it first."""
    from fakes.kernel.exchange import Exchange

    router = ServiceRouter(routes())
    wrapped = _count_exchange_sends(monkeypatch)

    def answer(method: str, path: str, body: bytes = b"", **extra: Any) -> tuple[Exchange, list[dict[str, Any]]]:
        sent: list[dict[str, Any]] = []
        chunks = [{"type": "http.request", "body": body, "more_body": False}]

        async def receive() -> dict[str, Any]:
            return chunks.pop() if chunks else {"type": "http.disconnect"}

        async def server_send(message: dict[str, Any]) -> None:
            sent.append(message)

        scope = {**_scope(method, path), **extra}
        exchange = Exchange(scope, receive, server_send, 1 << 20, True, 16 * 1024)
        asyncio.run(router(scope, exchange.receive, exchange.send))
        return exchange, sent

    exchange, sent = answer("GET", "/items/7")
    assert wrapped == []  # recorded by the router, sent the server's way
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    assert exchange.status == 200 and exchange.response_body == sent[1]["body"] == b'{"item":7,"method":"GET"}'
    assert exchange.response_headers is sent[0]["headers"] and exchange.response_length == len(sent[1]["body"])

    # a POST whose body the route never read: the exchange's send reads it before the answer goes
    headers = [(b"content-length", b"4")]
    exchange, sent = answer("POST", "/items/7", b"abcd", headers=headers)
    assert wrapped == ["http.response.start", "http.response.body"]
    assert exchange.request_body == b"abcd" and exchange.status == 200 and exchange.response_body == b"post"

    # a send that is not an exchange's (a rule wrapping it): the router sends through it as ever
    sent = []

    async def plain_send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(router(_scope("GET", "/items/8"), _no_body, plain_send))
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]


def test_the_routed_request_reads_bodies_forms_and_streams_as_starlettes_does() -> None:
    """The router's :class:`RoutedRequest` skips Request's constructor; what that constructor sets
    (stream not read, no form, not disconnected) behaves the same: a body read twice, a form, a
    stream consumed once, the disconnect check."""
    from starlette.requests import Request as StarletteRequest

    seen: list[Any] = []
    kinds: list[str] = []

    async def reader(request: StarletteRequest) -> Response:
        assert isinstance(request, StarletteRequest)
        body = await request.body()
        again = await request.body()  # kept after the first read
        form = await request.form()
        disconnected = await request.is_disconnected()
        try:
            async for _ in request.stream():
                pass
            consumed = "read again"
        except RuntimeError as exc:  # the stream was consumed by body()
            consumed = str(exc)
        kinds.append(type(request).__name__)
        seen.append((body == again, dict(form), disconnected, consumed, request.method, request.url.path))
        return PlainTextResponse(body.decode())

    def answers(app: Any) -> list[Any]:
        seen.clear()
        chunks = [{"type": "http.request", "body": b"a=1&b=two", "more_body": False}]

        async def receive() -> dict[str, Any]:
            return chunks.pop() if chunks else {"type": "http.disconnect"}

        sent: list[dict[str, Any]] = []

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        scope = _scope("POST", "/form")
        scope["headers"] = [(b"host", b"test"), (b"content-type", b"application/x-www-form-urlencoded")]
        asyncio.run(app(scope, receive, send))
        return [*seen, sent[1]["body"]]

    expected = answers(Router(routes=[Route("/form", reader, methods=["POST"])]))
    assert expected[0][0] is True and expected[0][1] == {"a": "1", "b": "two"}
    assert answers(ServiceRouter([Route("/form", reader, methods=["POST"])])) == expected
    assert kinds == ["Request", "RoutedRequest"]  # Starlette's own, then the router's


def test_a_route_sending_by_hand_records_its_answer_through_answer_send() -> None:
    """``answer_send`` (for routes that send their two messages themselves, as enrichment's do): the
    server's send and the answer recorded when ``send`` is an exchange's own; ``send`` itself
    otherwise, or when the route left a body unread that the journal keeps."""
    from fakes.kernel.exchange import Exchange, answer_send

    async def server_send(message: dict[str, Any]) -> None:
        return None

    get = Exchange(_scope("GET", "/x"), _no_body, server_send, 1 << 20, True, 16 * 1024)
    headers = [(b"content-type", b"text/plain")]
    assert answer_send(get.send, 201, headers, b"made") is server_send
    assert (get.status, get.response_headers, get.response_body, get.response_length) == (201, headers, b"made", 4)
    post = Exchange({**_scope("POST", "/x"), "headers": [(b"content-length", b"3")]}, _no_body, server_send,
                    1 << 20, True, 16 * 1024)
    assert answer_send(post.send, 200, headers, b"ok") == post.send and post.status == 0  # reads the body first
    assert answer_send(server_send, 200, headers, b"ok") is server_send


def test_enrichment_journals_what_it_sends_by_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    """Enrichment's route sends its answer itself: recorded at once (no message through the
    exchange's send wrapper), and the journal holds what the client got."""
    from fakes.enrichment import EnrichmentFake

    wrapped = _count_exchange_sends(monkeypatch)
    fake = EnrichmentFake(seed=0)
    method, path = fake.sample_request()  # a company the seed has: answered by the route, sent by hand
    with fake.client() as client:
        answer = client.request(method, path, headers=dict(fake.auth_headers()))
    assert wrapped == []
    entry = fake.journal_entries()[-1]
    assert entry["status"] == answer.status_code == 200
    assert entry["response"]["body"] == answer.text and entry["response"]["body_length"] == len(answer.content)
    assert entry["response"]["headers"]["content-type"] == answer.headers["content-type"]


def _count_exchange_sends(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The types of the messages that pass the journal exchange's send wrapper from now on."""
    from fakes.kernel.exchange import Exchange

    wrapped: list[str] = []
    exchange_send = Exchange.send

    def counted_send(self: Exchange, message: dict[str, Any]) -> Any:
        wrapped.append(message["type"])
        return exchange_send(self, message)

    monkeypatch.setattr(Exchange, "send", counted_send)
    return wrapped


def test_a_service_error_is_recorded_and_sent_without_the_exchanges_send_wrapper(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A refusal the route raised is rendered by the kernel and sent the way the router sends a
    plain answer: recorded for the journal at once, no message through the exchange's send
    wrapper; the journal holds the refusal the client got, and a refusal of a request whose body
    was left unread still shows that body (the wrapper reads it first)."""
    from fakes.member_export import MemberExportFake

    wrapped = _count_exchange_sends(monkeypatch)
    fake = MemberExportFake(seed=0)
    headers = fake.auth_headers()
    with fake.client() as client:
        refused = client.get("/rest/memberSnapshotData?q=criteria&start=many", headers=headers)
        assert wrapped == []
        entry = fake.journal_entries()[-1]
        assert entry["status"] == refused.status_code == 400
        assert entry["response"]["body"] == refused.text
        unread = client.post("/rest/memberSnapshotData?q=criteria", headers=headers, content=b'{"x": 1}')
    assert unread.status_code == 405
    assert fake.journal_entries()[-1]["request"]["body"] == '{"x": 1}'
