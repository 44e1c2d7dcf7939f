"""The dashboard's routes without a browser: the page and its assets, sign-in and the cookie, the
panels of every registered service, pictures without journal entries, worlds and the gateway."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import httpx
import pytest

from fakes import registry
from fakes.kernel.dashboard import DASHBOARD_ROUTES, assets
from fakes.kernel.dashboard.panels import collect, facts, image, progress, table, when
from fakes.kernel.fake import Fake
from fakes.kernel.gateway import GatewayApp
from fakes.kernel.transport import SyncFakeTransport
from fakes.member_export import MemberExportFake

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "ci-secret-token"
KINDS = {"table", "timeline", "facts", "error"}


def make(service: str, **kwargs: Any) -> Fake:
    cls = registry.fake_class(service)
    return cls(seed=0, **{**cls.settings_for_tests(), **kwargs})


def test_the_page_and_its_assets_come_from_the_fake_itself() -> None:
    client = MemberExportFake().client()
    page = client.get("/_fake/ui")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in page.headers["content-security-policy"]  # nothing from elsewhere
    assert page.headers["cache-control"] == "no-store"
    assert "http" not in page.text.replace("http-equiv", "")  # every URL relative
    version = assets.version()
    for name, media_type in assets.ASSET_TYPES.items():
        assert f"ui/assets/{name}?v={version}" in page.text
        served = client.get(f"/_fake/ui/assets/{name}", params={"v": version})
        assert served.status_code == 200 and served.headers["content-type"] == media_type
        assert "immutable" in served.headers["cache-control"]
        assert "https://" not in served.text and "//cdn" not in served.text
        assert client.get(f"/_fake/ui/assets/{name}").headers["cache-control"] == "no-cache"
    missing = client.get("/_fake/ui/assets/other.js")
    assert missing.status_code == 404 and missing.json()["error"] == "not_found"
    slash = client.get("/_fake/ui/")
    assert slash.status_code == 308 and slash.headers["location"] == "../ui"


def test_package_data_carries_every_static_file() -> None:
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    patterns = globs["fakes.kernel.dashboard"]
    static = ROOT / "fakes" / "kernel" / "dashboard" / "static"
    for path in static.iterdir():
        assert any(path.match(pattern.split("/", 1)[1]) for pattern in patterns), f"{path.name} is not package data"


def test_every_fake_and_world_shares_the_dashboard_routes() -> None:
    # nothing per fake or world: the routes (and the asset bytes) are the process's
    first, second = MemberExportFake(), MemberExportFake()
    world = first.world("w1")
    routers = [fake.app.control_router.routes for fake in (first, second, world)]
    for routes in routers:
        shared = [route for route in routes if any(route is mine for mine in DASHBOARD_ROUTES)]
        assert len(shared) == len(DASHBOARD_ROUTES)


@pytest.mark.parametrize("service", registry.service_names())
def test_panels_of_every_service_read_without_changing_anything(service: str) -> None:
    fake = make(service)
    method, path = fake.sample_request()  # the state the benchmark builds: entities in every panel
    fake.client().request(method, path, headers=fake.auth_headers())
    before = json.dumps(fake.export_state(), sort_keys=True)
    answer = fake.client().get("/_fake/ui/panels")
    assert answer.status_code == 200
    body = answer.json()
    assert body["service"] == service and body["world"] is None and body["worlds"] is True
    assert body["panels"], f"{service} shows no panel"
    for panel in body["panels"]:
        assert panel["kind"] in KINDS - {"error"}, panel
        assert panel["title"]
    assert json.dumps(fake.export_state(), sort_keys=True) == before, "looking changed the state"


def test_a_failing_hook_or_panel_is_an_error_note() -> None:
    fake = MemberExportFake()

    def broken() -> list[dict[str, Any]]:
        raise KeyError("gone")

    fake.dashboard_panels = broken  # type: ignore[method-assign]
    body = fake.client().get("/_fake/ui/panels").json()
    assert [panel["kind"] for panel in body["panels"]] == ["error"] and "gone" in body["panels"][0]["message"]

    def good(source: object) -> dict[str, Any]:
        return facts("Fine", [("answer", 42)])

    def fails(source: object) -> dict[str, Any]:
        raise ValueError("a bad row")

    def unsendable(source: object) -> dict[str, Any]:
        return table("Odd", ["x"], [[object()]])

    panels = collect(None, good, fails, unsendable)
    assert [(p["kind"], p["title"]) for p in panels] == [("facts", "Fine"), ("error", "fails"), ("error", "unsendable")]


def test_panel_shapes() -> None:
    made = table("Rows", ["n"], ([n] for n in range(5)), max_rows=3, note="some")
    assert made["rows"] == [[0], [1], [2]] and made["note"] == "some (showing 3 of 5 rows)"
    assert progress(1.7) == {"progress": 1.0, "text": ""} and progress(-1, "x")["progress"] == 0.0
    assert when(None) is None and when(1_767_603_600_000) == {"time": "2026-01-05T09:00:00Z",
                                                              "epoch_ms": 1_767_603_600_000}
    assert image("/vod/v1/thumbnail.jpg") == {"image": "vod/v1/thumbnail.jpg", "alt": ""}


def test_pictures_come_from_the_service_without_a_journal_entry() -> None:
    fake = make("video")
    headers = fake.auth_headers()
    client = fake.client()
    created = client.post("/videos", json={"title": "clip"}, headers=headers).json()
    clip = (ROOT / "tests" / "video" / "media" / "clip_2s_240p.mp4").read_bytes()
    assert client.post(f"/videos/{created['videoId']}/source", headers=headers,
                       files={"file": ("clip.mp4", clip, "video/mp4")}).status_code == 201
    fake.advance(600)
    panels = client.get("/_fake/ui/panels").json()["panels"]
    cells = [cell for panel in panels for row in panel.get("rows", []) for cell in row
             if isinstance(cell, dict) and "image" in cell]
    assert cells and all(cell["image"].endswith("thumbnail.jpg") for cell in cells)
    seen = fake.journal.total
    picture = client.get("/_fake/ui/image", params={"path": cells[0]["image"]})
    assert picture.status_code == 200 and picture.headers["content-type"] == "image/jpeg"
    assert picture.content.startswith(b"\xff\xd8")  # a JPEG
    assert fake.journal.total == seen  # looking is not a client's request
    assert client.get("/_fake/ui/image", params={"path": "videos"}).status_code == 404  # JSON, not a picture
    assert client.get("/_fake/ui/image", params={"path": "vod/nope/thumbnail.jpg"}).status_code == 404
    assert client.get("/_fake/ui/image").status_code == 404
    assert client.get("/_fake/ui/image", params={"path": "a?b"}).status_code == 400


def _cookie(answer: httpx.Response) -> str:
    return answer.headers["set-cookie"].split(";", 1)[0]


def test_control_token_once_then_the_cookie() -> None:
    fake = MemberExportFake(control_token=TOKEN)
    client = fake.client()
    login = client.get("/_fake/ui")
    assert login.status_code == 401 and 'name="token"' in login.text and 'action="ui/login"' in login.text
    assert client.get("/_fake/ui", params={"token": "wrong"}).status_code == 401
    assert client.get("/_fake/ui/assets/app.js").status_code == 200  # the shell holds no data
    assert client.get("/_fake/ui/panels").status_code == 401
    signed = client.get("/_fake/ui", params={"token": TOKEN})
    assert signed.status_code == 303 and signed.headers["location"] == "ui"
    attributes = signed.headers["set-cookie"]
    assert "HttpOnly" in attributes and "SameSite=Strict" in attributes and "Path=/" in attributes
    assert TOKEN not in attributes  # the browser keeps a session's id, not the token
    cookie = {"cookie": _cookie(signed)}
    assert client.get("/_fake/ui", headers=cookie).status_code == 200
    assert client.get("/_fake/ui/panels", headers=cookie).status_code == 200
    assert client.get("/_fake/journal", headers=cookie).status_code == 200
    # a change needs the dashboard's own header too: another page's form cannot send it
    assert client.post("/_fake/clock", json={"advance_seconds": 60}, headers=cookie).status_code == 401
    moved = client.post("/_fake/clock", json={"advance_seconds": 60}, headers={**cookie, "X-Fakes-UI": "1"})
    assert moved.status_code == 200
    other = _cookie(MemberExportFake(control_token=TOKEN).client().get("/_fake/ui", params={"token": TOKEN}))
    assert client.get("/_fake/journal", headers={"cookie": other}).status_code == 401  # another fake's session
    assert client.get("/_fake/ui/panels", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200


def test_login_form() -> None:
    fake = MemberExportFake(control_token=TOKEN)
    client = fake.client()
    wrong = client.post("/_fake/ui/login", data={"token": "nope"})
    assert wrong.status_code == 401 and 'action="login"' in wrong.text and "not this fake" in wrong.text
    assert client.post("/_fake/ui/login", data={"token": ""}).status_code == 400
    assert client.post("/_fake/ui/login", data={"token": TOKEN, "other": "x"}).status_code == 400
    assert client.post("/_fake/ui/login", json={"token": TOKEN, "more": 1}).status_code == 400
    assert client.post("/_fake/ui/login", json=[TOKEN]).status_code == 400
    assert client.post("/_fake/ui/login", content=b"token=" + TOKEN.encode(),
                       headers={"content-type": "text/plain"}).status_code == 400
    assert client.post("/_fake/ui/login", json={"token": TOKEN}).status_code == 303  # a script's login
    right = client.post("/_fake/ui/login", data={"token": TOKEN})
    assert right.status_code == 303 and right.headers["location"] == "../ui"
    assert client.get("/_fake/journal", headers={"cookie": _cookie(right)}).status_code == 200
    open_fake = MemberExportFake().client().post("/_fake/ui/login", data={"token": "anything"})
    assert open_fake.status_code == 303 and "set-cookie" not in open_fake.headers


def test_a_world_has_its_own_dashboard() -> None:
    fake = MemberExportFake(prefix="/mx")
    client = fake.client(base_url="http://testserver")
    assert client.get("/mx/_w/job-1/_fake/ui").status_code == 200
    body = client.get("/mx/_w/job-1/_fake/ui/panels").json()
    assert body["world"] == "job-1" and body["worlds"] is False
    assert client.get("/mx/_fake/ui/panels").json()["world"] is None


def test_gateway_root_lists_the_dashboards() -> None:
    fakes: dict[str, Fake] = {"member-export": MemberExportFake(prefix="/member-export"),
                              "video": make("video", prefix="/video")}
    client = httpx.Client(transport=SyncFakeTransport(GatewayApp(fakes)), base_url="http://testserver")
    listing = client.get("/").json()
    assert listing["dashboards"] == {"member-export": "/member-export/_fake/ui", "video": "/video/_fake/ui"}
    page = client.get("/", headers={"Accept": "text/html,application/xhtml+xml"})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert 'href="member-export/_fake/ui"' in page.text and 'href="video/_fake/ui"' in page.text
    assert client.get("/video/_fake/ui").status_code == 200
    assert client.get("/video/_fake/ui/panels").json()["service"] == "video"


def test_the_openapi_document_names_the_dashboard() -> None:
    paths = MemberExportFake().openapi()["paths"]
    for path in ("/_fake/ui", "/_fake/ui/login", "/_fake/ui/assets/{name}", "/_fake/ui/panels", "/_fake/ui/image"):
        assert path in paths
        for operation in paths[path].values():
            assert "control-plane" in operation["tags"]
