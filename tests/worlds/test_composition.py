"""Issue 23, item 10: one fake behind another stays in its world, in every serving mode.

In world ``a`` of the relay, ``POST /_fake/upstreams {"provider": ..., "fake": "enrichment"}`` makes
the relay call world ``a`` of the enrichment fake - on separate ports, behind the gateway (every
fake under a prefix), and in process (``registry.live``). The upstream's answer shows which world
answered: its virtual clock, moved only in world ``a``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from fakes import registry
from fakes.kernel.transport import SyncFakeTransport
from tests.support.serving import clean_env, fakes_command, free_port, free_port_block, running

from .conftest import make_root

DAY_S = 86_400
ENTRY = {"id": "dma.clock.get", "method": "GET", "path": "/_fake/clock", "params": {},
         "cost": {"type": "per_call", "value": 1_500}}

Call = Callable[..., httpx.Response]


def compose_and_call(relay: Call, enrichment: Call, world: str) -> dict[str, Any]:
    """In ``world`` (``""``: the default one): an upstream served by the enrichment fake, its clock
    moved a day there; the relay's call of it. Returns what the upstream answered and its clock."""
    base = f"/_w/{world}" if world else ""
    assert enrichment("POST", f"{base}/_fake/clock", json={"advance_seconds": DAY_S}).status_code == 200
    upstream_now = enrichment("GET", f"{base}/_fake/clock").json()["epoch_ms"]
    team = relay("POST", f"{base}/_fake/teams", json={}).json()
    assert relay("POST", f"{base}/_fake/providers", json={"provider": "dma", "host": "api.dma.example"}
                 ).status_code == 201
    assert relay("POST", f"{base}/_fake/catalog/entries", json=ENTRY).status_code == 201
    assert relay("POST", f"{base}/_fake/upstreams", json={"provider": "dma", "fake": "enrichment"}
                 ).status_code == 201, "the upstream"
    assert relay("POST", f"{base}/_fake/upstreams", json={"provider": "firmdata", "fake": "enrichment"}
                 ).status_code == 201
    headers = {"X-Proxy-Token": team["token"]}
    answer = relay("GET", f"{base}/call/dma.clock.get", headers=headers)
    firmdata = relay("GET", f"{base}/call/firmdata.companies.enrich", params={"domain": "northwind.com"},
                     headers=headers)
    assert "mounted at" not in firmdata.text, firmdata.text  # the enrichment's own answer, not a mount's 404
    assert answer.status_code == 200, answer.text
    return {"answer": answer.json(), "upstream_now": upstream_now}


def check_worlds(relay: Call, enrichment: Call, default_now: int) -> None:
    in_world = compose_and_call(relay, enrichment, "a")
    assert in_world["answer"]["epoch_ms"] == in_world["upstream_now"] == default_now + DAY_S * 1000
    assert enrichment("GET", "/_fake/clock").json()["epoch_ms"] == default_now  # the default world's stayed
    # and the default world's relay uses the default world's enrichment
    in_default = compose_and_call(relay, enrichment, "")
    assert in_default["answer"]["epoch_ms"] == in_default["upstream_now"] == default_now + DAY_S * 1000
    assert enrichment("GET", "/_w/a/_fake/clock").json()["epoch_ms"] == default_now + DAY_S * 1000


def test_in_process_with_registry_live() -> None:
    relay, enrichment = make_root("relay"), make_root("enrichment")
    with registry.live(relay, enrichment), relay.client() as r, enrichment.client() as e:
        check_worlds(r.request, e.request, enrichment.clock.now_ms())
    assert "enrichment" not in registry.LIVE_FAKES


def test_in_process_under_prefixes() -> None:
    relay, enrichment = make_root("relay", prefix="/relay"), make_root("enrichment", prefix="/enrichment")
    with registry.live(relay, enrichment), relay.client() as r, enrichment.client() as e:
        check_worlds(r.request, e.request, enrichment.clock.now_ms())


def test_local_app_answers_below_the_base_with_the_base_in_its_links() -> None:
    enrichment = make_root("enrichment", prefix="/enrichment")
    world = enrichment.world("w")
    with httpx.Client(transport=SyncFakeTransport(world.local_app), base_url="http://in") as client:
        assert client.get("/_fake/health").json() == {"service": "enrichment", "status": "ok"}
        assert client.get("/openapi.json").json()["servers"][0]["url"] == "/enrichment/_w/w"
        assert client.head("/_fake/clock").content == b""


@pytest.mark.parametrize("mode", ["ports", "gateway"])
def test_served_by_fakes_serve(mode: str) -> None:
    port = free_port() if mode == "gateway" else free_port_block(2)
    command = [fakes_command(), "serve", "--only", "enrichment,relay", "--clock", "manual"]
    if mode == "gateway":
        command += ["--gateway", str(port)]
        relay_url, enrichment_url = f"http://127.0.0.1:{port}/relay", f"http://127.0.0.1:{port}/enrichment"
    else:
        second = port + 1
        command += ["--port", str(port)]
        enrichment_url, relay_url = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{second}"
    with running(command, clean_env()) as served:
        served.wait_until_up([f"{relay_url}/_fake/health", f"{enrichment_url}/_fake/health"])
        with httpx.Client(base_url=relay_url) as r, httpx.Client(base_url=enrichment_url) as e:
            check_worlds(r.request, e.request, e.get("/_fake/clock").json()["epoch_ms"])
