"""Bodies the relay reads itself (its control plane, its MCP JSON-RPC) pass the kernel's checks
(no lone surrogates, NaN or runaway nesting) and their published schemas; bodies it forwards
under /call/ reach the upstream byte for byte, whatever they hold."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from fakes.relay import RelayFake, bodies
from fakes.relay.upstreams import UpstreamRequest, UpstreamResponse

UNSTORABLE = [b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"x": "\\ud800"}}',
              b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"x": NaN}}',
              b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": ' + b'[' * 300 + b']' * 300 + b'}']


@pytest.mark.parametrize("raw", UNSTORABLE, ids=["lone-surrogate", "nan", "deep"])
def test_the_connector_refuses_what_no_answer_could_carry(fake: RelayFake, raw: bytes) -> None:
    with fake.client(headers={"X-Proxy-Token": fake.create_team()["token"]}) as http:
        refused = http.post("/mcp/v2/", content=raw, headers={"content-type": "application/json"})
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == -32600


@pytest.mark.parametrize("raw", [b'{"name": "\\udc00"}', b'{"balance_micro": NaN}', b'[' * 300 + b']' * 300],
                         ids=["lone-surrogate", "nan", "deep"])
def test_control_bodies_pass_the_kernel_reader(fake: RelayFake, raw: bytes) -> None:
    before = fake.export_state()
    with fake.client() as http:
        refused = http.post("/_fake/teams", content=raw, headers={"content-type": "application/json"})
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_json"
    assert fake.export_state() == before


def test_a_forwarded_body_stays_byte_identical(fake: RelayFake, team: dict[str, Any], client: httpx.Client) -> None:
    seen: list[bytes] = []

    def upstream(request: UpstreamRequest) -> UpstreamResponse:
        seen.append(request.body)
        return UpstreamResponse(200, [("content-type", "text/plain")], b"ok")

    fake.register_upstream("mailscout", upstream)
    fake.add_tool(team["team_id"], "mailscout", "own-key")
    raw = b'{"text": "\\ud800", "n": NaN, "deep": ' + b'[' * 300 + b']' * 300 + b'}'
    answered = client.post("/call/https://api.mailscout.example/v1/anything", content=raw,
                           headers={"content-type": "application/json"})
    assert answered.status_code == 200, answered.text
    assert seen == [raw]


@pytest.mark.parametrize(("path", "body", "field"), [
    ("/_fake/teams", {"name": " \t"}, "name"),
    ("/_fake/teams", {"balance_micro": 10**13}, "balance_micro"),
    ("/_fake/teams/team_1/topup", {"amount_micro": 0}, "amount_micro"),
    ("/_fake/providers", {"provider": "\u00e9clair"}, "provider"),
    ("/_fake/providers", {"provider": "acme\n"}, "provider"),
    ("/_fake/providers", {"provider": "acme", "host": "a/b"}, "host"),
    ("/_fake/providers", {"provider": "acme", "display_name": 7}, "display_name"),
    ("/_fake/catalog/entries", {"id": "mailscout.x.y", "path": "/v", "curated": "yes"}, "curated"),
    ("/_fake/catalog/entries", {"id": "mailscout.x.y", "path": "/v", "cost": {"type": "per_call"}}, "cost.value"),
    ("/_fake/catalog/entries", {"id": "mailscout.x.y", "path": "/v", "params": {"q": {"example": 2**70}}},
     "params.q.example"),
    ("/_fake/saturation", {"retry_after_s": -1}, "retry_after_s"),
    ("/_fake/upstreams", {"provider": "mailscout", "responses": [{"headers": {"x": "a\r\nb"}}]},
     "responses[0].headers.x"),
])
def test_control_bodies_are_held_to_their_schema(fake: RelayFake, path: str, body: Any, field: str) -> None:
    fake.create_team()
    before = fake.export_state()
    with fake.client() as http:
        method = http.put if path == "/_fake/saturation" else http.post
        refused = method(path, json=body)
    assert refused.status_code == 400, refused.text
    assert refused.json()["field"] == field
    assert fake.export_state() == before


@pytest.mark.parametrize("responses", [
    [{"headers": {"bad name": "x"}}],
    [{"body": {"n": 2**70}}],
    [{"status": 101}],
], ids=["header-name", "huge-integer", "informational-status"])
def test_canned_answers_that_could_not_be_sent_are_refused(fake: RelayFake, responses: Any) -> None:
    with fake.client() as http:
        refused = http.post("/_fake/upstreams", json={"provider": "mailscout", "responses": responses})
    assert refused.status_code == 400, refused.text


def test_canned_framing_headers_are_the_relays_own(fake: RelayFake, team: dict[str, Any],
                                                   client: httpx.Client) -> None:
    fake.register_upstream("mailscout", responses=[
        {"path": "/v1/gone", "status": 204, "headers": {"Content-Length": "99"}, "body": {"ignored": True}},
        {"status": 200, "headers": {"Transfer-Encoding": "chunked"}, "body": "plain"}])
    fake.add_tool(team["team_id"], "mailscout", "own-key")
    empty = client.get("/call/https://api.mailscout.example/v1/gone")
    plain = client.get("/call/https://api.mailscout.example/v1/other")
    assert (empty.status_code, empty.content) == (204, b"")
    assert (plain.status_code, plain.text) == (200, "plain")


def test_the_document_publishes_the_schemas_the_server_checks(fake: RelayFake) -> None:
    with fake.client() as http:
        paths = http.get("/openapi.json").json()["paths"]
    published = {(path, method): operation["requestBody"]["content"]["application/json"]["schema"]
                 for path, item in paths.items() if path.startswith("/_fake/")
                 for method, operation in item.items() if isinstance(operation, dict) and "requestBody" in operation}
    assert published[("/_fake/teams", "post")] == bodies.TEAM
    assert published[("/_fake/catalog/entries", "post")] == bodies.ENTRY
    assert published[("/_fake/upstreams", "post")] == bodies.UPSTREAM


@pytest.mark.parametrize("value", ["mailscout\n", "abc\n"])
def test_a_pattern_ending_in_dollar_refuses_a_final_newline(fake: RelayFake, value: str) -> None:
    """The published patterns are ECMA-262's (OpenAPI's), where ``$`` is the end of the text: the
    relay's check reads a final ``$`` as Python's ``\\Z``, so a trailing newline stays refused."""
    assert bodies.PROVIDER["properties"]["provider"]["pattern"].endswith("$")
    refused = fake.client().post("/_fake/providers", json={"provider": value})
    assert refused.status_code == 400 and refused.json()["field"] == "provider"
    assert bodies.problem({"provider": value.strip()}, bodies.PROVIDER, "") is None


def test_a_body_route_reads_its_body_first_only_for_a_method_that_sends_one() -> None:
    """The account routes read a POST, PUT or PATCH body before anything else (a body past the cap
    is the 413 whatever else is wrong); a GET of a route that also takes a POST reads nothing, as a
    GET-only route does."""
    import asyncio

    fake = RelayFake(seed=0, max_body_bytes=64)
    token = fake.auth_headers()["X-Proxy-Token"].encode()
    reads: list[str] = []
    answers: list[int] = []

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            answers.append(message["status"])

    async def ask(method: str, body: bytes) -> None:
        async def receive() -> dict[str, Any]:
            reads.append(method)
            return {"type": "http.request", "body": body, "more_body": False}

        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
                 "scheme": "http", "path": "/orgs/1/invites", "raw_path": b"/orgs/1/invites", "query_string": b"",
                 "root_path": "", "headers": [(b"host", b"relay.test"), (b"x-proxy-token", token),
                                               (b"content-type", b"application/json")],
                 "client": ("127.0.0.1", 1), "server": ("relay.test", 80)}
        await fake.app(scope, receive, send)

    asyncio.run(ask("GET", b""))
    assert answers == [200] and reads == []
    asyncio.run(ask("POST", b'{"email": "' + b"a" * 100 + b'@x.example"}'))
    assert answers == [200, 413] and reads == ["POST"]
