"""The world cap (429) and invalid world ids (400), in each service's own error shape."""

from __future__ import annotations

import httpx
import pytest

from fakes.kernel.errors import ServiceError
from fakes.kernel.worlds import InvalidWorldId, WorldCapReached

from .conftest import make_root

INVALID_IDS = ["bad.id", "a" * 65, "with space", "ümlaut", "semi;colon", "a%2Fb", "~tilde"]


def service_shape(fake: object, status: int, code: str) -> set[str]:
    """The top-level keys of the service's own error body."""
    return set(fake.error_body(ServiceError(status, "x", code=code)))  # type: ignore[attr-defined]


def test_the_cap_answers_429_in_the_service_shape_and_a_deleted_world_frees_its_slot(service: str) -> None:
    fake = make_root(service, max_worlds=2)
    with fake.serve() as base, httpx.Client(base_url=base) as http:
        assert http.get("/_w/one/_fake/health").status_code == 200
        assert http.get("/_fake/health", headers={"X-Fake-World": "two"}).status_code == 200
        refused = http.get("/_w/three/_fake/health")
        assert refused.status_code == 429
        assert "world cap" in refused.text and "2" in refused.text and "--max-worlds" in refused.text
        service_refused = http.get("/_w/three/openapi.json")
        assert service_refused.status_code == 429
        assert set(service_refused.json()) == service_shape(fake, 429, "world_cap_reached")
        assert "three" not in fake.worlds  # type: ignore[operator]
        # existing worlds and the default world keep answering
        assert http.get("/_w/one/_fake/clock").status_code == 200
        assert http.get("/_w/two/_fake/clock").status_code == 200
        assert http.get("/_fake/clock").status_code == 200
        with pytest.raises(WorldCapReached):
            fake.world("three")
        # deleting a world frees its slot
        assert http.delete("/_fake/worlds/one").json() == {"deleted": "one"}
        assert http.delete("/_fake/worlds/one").status_code == 404
        assert http.get("/_w/three/_fake/health").status_code == 200
        assert sorted(w["id"] for w in http.get("/_fake/worlds").json()["worlds"]) == ["three", "two"]
        assert http.get("/_fake/worlds").json()["max_worlds"] == 2


@pytest.mark.parametrize("world_id", INVALID_IDS)
def test_an_invalid_world_id_is_a_400_in_the_service_shape(service: str, world_id: str) -> None:
    fake = make_root(service)
    client = fake.client()
    method, path = fake.sample_request()
    for response in (client.request(method, f"/_w/{world_id}{path}", headers=fake.auth_headers()),
                     client.request(method, path, headers={**fake.auth_headers(), "X-Fake-World": world_id.encode()})):
        assert response.status_code == 400, response.text
        assert set(response.json()) == service_shape(fake, 400, "invalid_world")
        assert "invalid world id" in response.text
    control = client.get(f"/_w/{world_id}/_fake/clock")
    assert control.status_code == 400
    assert control.json()["error"] == "invalid_world"  # the control plane's own shape
    assert len(fake.worlds) == 0  # type: ignore[arg-type]
    assert fake.journal_entries() == []  # nothing changed
    with pytest.raises(InvalidWorldId):
        fake.world(world_id)


def test_empty_world_ids_and_the_longest_valid_one(service: str) -> None:
    fake = make_root(service)
    client = fake.client()
    assert client.get("/_w/").status_code == 400
    assert client.get("/_w").status_code == 400
    assert client.get("/_fake/health", headers={"X-Fake-World": ""}).status_code == 400
    longest = "A-z_9" * 12 + "abcd"
    assert len(longest) == 64
    assert client.get(f"/_w/{longest}/_fake/health").status_code == 200
    bare = client.get("/_w/x")  # the world's base without its slash: the service's own answer
    assert bare.status_code != 400 and bare.status_code < 500
    if bare.is_redirect:
        assert bare.headers["location"].endswith("/_w/x/")
    assert client.delete("/_fake/worlds/bad.id").status_code == 400
    assert client.get(f"/_fake/worlds/{longest}").json()["id"] == longest
    # /_wx is no world path: the default world answers (its own 404 or whatever it serves)
    assert client.get("/_wx/_fake/health").status_code != 400


def test_the_cap_and_expiry_settings_are_checked() -> None:
    with pytest.raises(ValueError):
        make_root("filings", max_worlds=-1)
    with pytest.raises(ValueError):
        make_root("filings", world_idle_expiry=-5)
    assert make_root("filings", max_worlds=0).worlds.max_worlds is None  # type: ignore[union-attr]
