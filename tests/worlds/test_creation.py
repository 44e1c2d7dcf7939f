"""Issue 23, item 8: a refused request creates nothing. A world comes into being only with a
request to it that is answered below 400; with a control token, a world's control plane refuses a
request without the token before any world is looked up, and the gateway's own ``/`` and
``/_fake/health`` need the token too."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from fakes.kernel.gateway import GatewayApp
from fakes.kernel.transport import SyncFakeTransport
from tests.support.serving import clean_env, fakes_command, free_port, ready_services, running

from .conftest import make_root

TOKEN = "ci-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def test_anonymous_requests_to_worlds_answer_401_and_leave_no_world(service: str) -> None:
    fake = make_root(service, control_token=TOKEN, max_worlds=10)
    client = fake.client()
    for i in range(50):  # five times the cap: none of them may take a slot
        assert client.get(f"/_w/junk{i}/_fake/health").status_code == 401
        assert client.post(f"/_w/junk{i}/_fake/reset", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert len(fake.worlds) == 0 and fake.worlds._worlds == {}  # type: ignore[arg-type]
    assert client.get("/_w/job/_fake/health", headers=AUTH).status_code == 200  # the token holder gets a slot
    assert fake.worlds.ids() == ["job"]  # type: ignore[union-attr]


def test_a_refused_request_leaves_no_world(service: str) -> None:
    fake = make_root(service)
    client = fake.client()
    refused = [
        client.get("/_w/a/no/such/path/at/all"),                          # an unknown path: the service's 404
        client.post("/_w/b/_fake/clock", json={"advance_seconds": -1}),  # a control call refused (409)
        client.post("/_w/c/_fake/faults", content=b"{"),                 # not JSON: 400
        client.delete("/_w/d/_fake/faults/f99"),                         # 404
        client.get("/_w/e/_fake/nothing"),                               # no such control operation
        client.put("/_w/f/_fake/state", json={"service": "other"}),      # an import refused
    ]
    assert all(400 <= r.status_code < 500 for r in refused), [r.status_code for r in refused]
    assert fake.worlds._worlds == {}  # type: ignore[union-attr]
    assert client.get("/_fake/worlds").json()["count"] == 0
    assert client.get("/_fake/worlds/a").status_code == 404
    # the same world, asked properly, comes into being from the seed, with nothing of the refusals
    assert client.get("/_w/b/_fake/clock").json()["epoch_ms"] == fake.clock.now_ms()
    assert client.get("/_w/b/_fake/journal").json()["entries"] == []
    assert fake.worlds.ids() == ["b"]  # type: ignore[union-attr]


def test_a_world_once_made_stays_after_a_refusal(service: str) -> None:
    fake = make_root(service)
    client = fake.client()
    assert client.get("/_w/a/_fake/health").status_code == 200
    assert client.get("/_w/a/no/such/path").status_code >= 400
    assert "a" in fake.worlds  # type: ignore[operator]
    assert [e["path"] for e in client.get("/_w/a/_fake/journal").json()["entries"]] == ["/no/such/path"]


def test_a_refused_first_request_does_not_drop_a_world_another_request_made_meanwhile() -> None:
    fake = make_root("member-export")
    body_may_come = asyncio.Event()
    statuses: dict[str, int] = {}

    def scope(method: str, path: str) -> dict[str, Any]:
        return {"type": "http", "method": method, "path": path, "raw_path": path.encode(), "query_string": b"",
                "headers": [(b"content-type", b"application/json")], "root_path": ""}

    async def call(name: str, method: str, path: str, body_event: asyncio.Event | None) -> None:
        async def receive() -> dict[str, Any]:
            if body_event is not None:
                await body_event.wait()  # the first request's body comes only after the second's answer
            return {"type": "http.request", "body": b"{", "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                statuses[name] = message["status"]

        await fake.app(scope(method, path), receive, send)

    async def both() -> None:
        slow = asyncio.ensure_future(call("refused", "POST", "/_w/x/_fake/faults", body_may_come))
        await asyncio.sleep(0)  # the world exists (not yet confirmed) and waits for the body
        assert fake.worlds.ids() == []  # type: ignore[union-attr]
        await call("ok", "GET", "/_w/x/_fake/health", None)
        body_may_come.set()
        await slow

    asyncio.run(both())
    assert statuses == {"refused": 400, "ok": 200}
    assert fake.worlds.ids() == ["x"]  # type: ignore[union-attr]


def test_worlds_made_in_python_need_no_request(service: str) -> None:
    fake = make_root(service, control_token=TOKEN)
    fake.world("py")
    assert fake.worlds.ids() == ["py"]  # type: ignore[union-attr]
    assert fake.client().get("/_w/py/no/such/path").status_code >= 400
    assert "py" in fake.worlds  # type: ignore[operator]


def _gateway(**kwargs: Any) -> httpx.Client:
    fakes = {name: make_root(name, prefix="/" + name, **kwargs) for name in ("member-export", "filings")}
    return httpx.Client(transport=SyncFakeTransport(GatewayApp(fakes)), base_url="http://gateway")


@pytest.mark.parametrize("path", ["/", "/_fake/health"])
def test_the_gateway_description_needs_the_token_when_there_is_one(path: str) -> None:
    with _gateway(control_token=TOKEN) as gateway:
        refused = gateway.get(path)
        assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
        assert "services" not in refused.text
        assert gateway.get(path, headers=AUTH).json()["services"]["filings"] == "/filings"
        unknown = gateway.get("/nowhere")
        assert unknown.status_code == 404 and "services" not in unknown.json()
        assert gateway.get("/filings/_w/z/_fake/health").status_code == 401
    with _gateway() as open_gateway:
        assert open_gateway.get(path).status_code == 200


def test_from_outside_on_fakes_serve_with_a_token() -> None:
    name = ready_services()[0]
    port, gateway = free_port(), free_port()
    env = clean_env()
    with running([fakes_command(), "serve", "--only", name, "--port", str(port), "--clock", "manual",
                  "--control-token", TOKEN, "--max-worlds", "5"], env) as served:
        served.wait_until_up([f"http://127.0.0.1:{port}/_fake/health"], headers=AUTH)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as client:
            for i in range(50):
                assert client.get(f"/_w/junk{i}/_fake/health").status_code == 401
                assert client.get(f"/_w/junk{i}/no/such/path").status_code >= 400
            assert client.get("/_fake/worlds", headers=AUTH).json()["count"] == 0
            assert client.get("/_w/job/_fake/health", headers=AUTH).status_code == 200
            assert client.get("/_fake/worlds", headers=AUTH).json()["count"] == 1
    with running([fakes_command(), "serve", "--only", name, "--gateway", str(gateway), "--clock", "manual",
                  "--control-token", TOKEN], env) as served:
        served.wait_until_up([f"http://127.0.0.1:{gateway}/{name}/_fake/health"], headers=AUTH)
        for path in ("/", "/_fake/health"):
            assert httpx.get(f"http://127.0.0.1:{gateway}{path}").status_code == 401
            assert httpx.get(f"http://127.0.0.1:{gateway}{path}", headers=AUTH).status_code == 200
        assert httpx.get(f"http://127.0.0.1:{gateway}/{name}/_w/junk/_fake/health").status_code == 401
        assert httpx.get(f"http://127.0.0.1:{gateway}/{name}/_fake/worlds", headers=AUTH).json()["count"] == 0
