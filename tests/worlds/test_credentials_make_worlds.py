"""Issue 33, item 6: a world is made only by a request that carries the world's credentials (the
control token, or a credential of the service on an operation that needs one), never by a public
document. Five anonymous ``HEAD /_w/<id>/openapi.json`` filled ``--max-worlds 5``, and the job
holding the token got 429: now they are answered and leave nothing behind."""

from __future__ import annotations

from typing import Any

import httpx

from fakes.kernel.fake import Fake
from fakes.kernel.worlds import secured_operations
from tests.support.serving import clean_env, fakes_command, free_port, ready_services, running

from .conftest import make_root

TOKEN = "ci-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _slots(fake: Fake) -> int:
    return len(fake.worlds._worlds)  # type: ignore[union-attr]  # kept and in-flight alike


def _open_gets(fake: Fake) -> list[str]:
    """The service's documented GET operations without path parameters."""
    paths = fake.openapi_document().get("paths", {})
    return sorted(p for p, item in paths.items() if "get" in item and "{" not in p and not p.startswith("/_fake"))


def test_public_documents_and_anonymous_calls_make_no_world(service: str) -> None:
    fake = make_root(service, control_token=TOKEN, max_worlds=5)
    client = fake.client()
    for i in range(12):  # more than the cap: none of them may take a slot
        assert client.head(f"/_w/doc{i}/openapi.json").status_code == 200
        assert client.get(f"/_w/doc{i}/openapi.json").status_code == 200
        assert client.get(f"/_w/ui{i}/_fake/ui/assets/app.js").status_code == 200  # the dashboard's script
        assert client.get(f"/_w/ui{i}/_fake/ui").status_code == 401  # its login form
    for path in _open_gets(fake):  # every plain GET, anonymous: answered or refused, no world either way
        client.get(f"/_w/anon/{path.lstrip('/')}")
        client.get(f"/_w/anon/{path.lstrip('/')}", headers={"Authorization": "Bearer not-a-key"})
    assert _slots(fake) == 0
    assert client.get("/_fake/worlds", headers=AUTH).json()["count"] == 0
    for i in range(5):  # the job holding the token still gets every slot
        assert client.get(f"/_w/job{i}/_fake/health", headers=AUTH).status_code == 200
    assert sorted(fake.worlds.ids()) == [f"job{i}" for i in range(5)]  # type: ignore[union-attr]


def test_a_world_answers_its_document_and_keeps_it_when_made(service: str) -> None:
    fake = make_root(service, control_token=TOKEN)
    client = fake.client()
    anonymous = client.get("/_w/job/openapi.json").json()
    assert anonymous["servers"][0]["url"].endswith("/_w/job")  # the world's own document, made for the answer
    assert client.get("/_w/job/_fake/health", headers=AUTH).status_code == 200
    assert client.get("/_w/job/openapi.json").json() == anonymous
    assert fake.worlds.ids() == ["job"]  # type: ignore[union-attr]


def test_without_a_token_a_document_still_makes_no_world_but_an_answered_call_does(service: str) -> None:
    fake = make_root(service)
    client = fake.client()
    assert client.head("/_w/a/openapi.json").status_code == 200
    assert client.get("/_w/b/_fake/ui").status_code == 200
    assert _slots(fake) == 0
    assert client.get("/_w/c/_fake/health").status_code == 200  # the control plane is open: anyone may
    assert fake.worlds.ids() == ["c"]  # type: ignore[union-attr]


def test_a_service_credential_the_world_accepts_makes_it() -> None:
    """With a token, an API call makes a world when its operation needs a credential and the world
    accepted it (answered below 400); the same call without one, or with a wrong one, makes none."""
    fake = make_root("filings", control_token=TOKEN)
    headers = make_root("filings").auth_headers()  # filings' keys of one seed hold in each of its worlds
    client = fake.client()
    assert client.get("/_w/job/filings/").status_code == 401
    assert client.get("/_w/job/filings/", headers={"X-API-Key": "fr_enterprise_0000"}).status_code == 401
    assert _slots(fake) == 0
    assert client.get("/_w/job/filings/", headers=headers).status_code == 200
    assert fake.worlds.ids() == ["job"]  # type: ignore[union-attr]


def test_secured_operations_read_from_the_document() -> None:
    document: dict[str, Any] = {"security": [{"key": []}], "paths": {
        "/a/{id}": {"get": {}, "post": {"security": []}},
        "/b/": {"get": {"security": [{}, {"key": []}]}},
        "/c": {"get": {"security": [{"other": []}]}}}}
    assert secured_operations(document) == {("get", "/a/{}"): True, ("post", "/a/{}"): False,
                                            ("get", "/b"): False, ("get", "/c"): True}


def test_from_outside_five_anonymous_heads_do_not_fill_the_cap() -> None:
    name = ready_services()[0]
    port = free_port()
    with running([fakes_command(), "serve", "--only", name, "--port", str(port), "--clock", "manual",
                  "--control-token", TOKEN, "--max-worlds", "5"], clean_env()) as served:
        served.wait_until_up([f"http://127.0.0.1:{port}/_fake/health"], headers=AUTH)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as client:
            for i in range(5):
                assert client.head(f"/_w/anon{i}/openapi.json").status_code == 200
            assert client.get("/_fake/worlds", headers=AUTH).json()["count"] == 0
            assert client.get("/_w/job/_fake/health", headers=AUTH).status_code == 200
