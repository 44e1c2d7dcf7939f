"""WireMock mappings as stubs: a folder of real-world-shaped mappings (tests/stubs/wiremock, WireMock's
own layout), each translated or refused with its reason; then the stubs answer as WireMock would."""

from __future__ import annotations

import base64
import re
import time
from pathlib import Path
from typing import Any

import pytest

from examples.notes import NotesFake
from fakes.kernel.wiremock import MappingsFolderError, read_folder, translate
from fakes.kernel.wiremock_templates import Untranslatable, handlebars
from fakes.kernel.wiremockdirs import load_mappings, mapping_folders

FOLDER = Path(__file__).parent / "wiremock"
START_MS = 1767603600000

#: each mapping that must be refused, with what its reason says
REFUSED = {
    "jsonpath-presence.json": "the JSONPath '$.items[0].id' tests presence or filters",
    "body-file.json": "response.bodyFileName: files under __files are not read",
    "base64-thumbnail.json": "response.base64Body",
    "connection-reset.json": "response.fault: use a fault rule instead",
    "random-delay.json": "response.delayDistribution",
    "unsafe-regex.json": "a repeat inside a repeat",
    "proxy.json": "response.proxyBaseUrl: proxying",
    "does-not-match.json": "request.queryParameters.sort: doesNotMatch has no negated regex criterion",
    "xml-body.json": "the body pattern 'equalToXml' is not translated",
    "templated-random.json": "the template helper 'randomValue'",
    "not-json.json": "not a JSON file",
    "webhook-callback.json": "postServeActions (webhooks) are not translated",
    "cookies.json": "request.cookies: cookie matching is not translated",
}


@pytest.fixture
def loaded() -> tuple[NotesFake, list[str]]:
    fake = NotesFake(seed=1)
    lines = load_mappings({"notes": fake}, mapping_folders([f"notes={FOLDER}"], ["notes"], ["notes"]))
    return fake, lines


def test_the_folder_holds_twenty_and_more_mappings() -> None:
    found = read_folder(FOLDER)
    assert len(found) >= 30 and len({source.partition("#")[0] for source, _ in found}) >= 29


def test_each_mapping_is_translated_or_refused_with_its_reason(loaded: tuple[NotesFake, list[str]]) -> None:
    fake, lines = loaded
    refused = {line.split(": ", 1)[0].removeprefix("  refused "): line.split(": ", 1)[1]
               for line in lines[1:]}
    assert set(refused) == set(REFUSED), lines
    for source, reason in REFUSED.items():
        assert reason in refused[source], (source, refused[source])
    translated = len(read_folder(FOLDER)) - len(REFUSED)
    assert lines[0] == f"wiremock mappings from {FOLDER}: {translated} stubs for notes, " \
                       f"{len(REFUSED)} refused:"
    assert len(fake.stubs()) == translated
    names = {stub["name"] for stub in fake.stubs()}
    assert "admin: list users" in names and "todo-scenario.json#1" in names and "search.json" in names


def _call(fake: NotesFake, method: str, path: str, **kwargs: Any) -> Any:
    return fake.client().request(method, path, **kwargs)


def test_urls_paths_templates_and_patterns(loaded: tuple[NotesFake, list[str]]) -> None:
    fake, _ = loaded
    assert _call(fake, "GET", "/admin/users?role=owner").json()["total"] == 1
    assert _call(fake, "GET", "/admin/users?role=owner&x=1").status_code == 404  # url is exact, query included
    assert _call(fake, "GET", "/admin/users/u7").json() == {"id": "u7", "name": "User u7"}
    assert _call(fake, "DELETE", "/admin/users/u7").status_code == 204
    assert _call(fake, "DELETE", "/admin/users/U7").status_code != 204
    assert _call(fake, "POST", "/videos/v1a/source").json() == {"uploaded": True}
    assert _call(fake, "PATCH", "/api/anything/at/all").json() == {"error": "not stubbed"}
    assert _call(fake, "GET", "/notes").status_code == 200  # the model still answers what no mapping names


def test_query_header_and_credential_matchers(loaded: tuple[NotesFake, list[str]]) -> None:
    fake, _ = loaded
    assert _call(fake, "GET", "/search?q=annual+report&page=2").json()["page"] == 2
    assert _call(fake, "GET", "/search?q=annual&page=2&debug=1").status_code == 404
    assert _call(fake, "GET", "/search?q=quarterly&page=2").status_code == 404
    pdf = _call(fake, "GET", "/reports/latest", headers={"Accept": "application/pdf"})
    assert (pdf.status_code, pdf.headers["content-type"], pdf.text) == (200, "application/pdf", "%PDF-1.7 fake")
    assert _call(fake, "GET", "/reports/latest", headers={"Accept": "text/html"}).status_code == 404
    good = "Basic " + base64.b64encode(b"ada:s3cret").decode()
    assert _call(fake, "GET", "/secure", headers={"Authorization": good}).text == "welcome"
    assert _call(fake, "GET", "/secure", headers={"Authorization": "Basic eDp5"}).status_code == 404
    token = _call(fake, "POST", "/oauth/token", data={"grant_type": "client_credentials", "scope": "read write"})
    assert token.json()["access_token"] == "t-1"


def test_body_patterns_and_priorities(loaded: tuple[NotesFake, list[str]]) -> None:
    fake, _ = loaded
    assert _call(fake, "POST", "/orders", json={"quantity": 2, "sku": "A-1"}).json() == {"id": "o-1", "exact": True}
    assert _call(fake, "POST", "/orders", json={"sku": "A-1", "quantity": 2, "gift": True}).json()["exact"] is False
    assert _call(fake, "POST", "/orders", json={"sku": "B-2"}).status_code == 404
    assert _call(fake, "POST", "/hooks/filing", content=b'{"id":1,"status":"final"}').status_code == 202
    assert _call(fake, "POST", "/hooks/filing", content=b'{"id":1,"status":"draft"}').status_code == 404
    assert _call(fake, "POST", "/notes/tagged", json={"tag": "final"}).json() == {"accepted": "final"}
    assert _call(fake, "POST", "/payments", json={"order": {"id": 3, "status": "paid"}}).json() == {"receipt": "r-1"}
    assert _call(fake, "POST", "/payments", json={"order": {"status": "open"}}).status_code == 404


def test_a_scenario_from_one_file_of_several_mappings(loaded: tuple[NotesFake, list[str]]) -> None:
    fake, _ = loaded
    assert _call(fake, "GET", "/todo/items").json() == {"items": ["Buy milk"]}
    assert _call(fake, "POST", "/todo/items", content=b"Cancel newspaper subscription").status_code == 201
    assert _call(fake, "GET", "/todo/items").json()["items"][-1] == "Cancel newspaper subscription"
    assert fake.stubs.scenario_states() == {"To do list": "Cancel newspaper item added"}


def test_templates_delays_and_headers(loaded: tuple[NotesFake, list[str]]) -> None:
    fake, _ = loaded
    issued = _call(fake, "POST", "/tokens", json={"client_id": "app-1"}, headers={"X-Request-Id": "r9"})
    assert issued.status_code == 201 and issued.headers["x-request-id"] == "r9"
    assert issued.json() == {"client": "app-1", "issued_at": "2026-01-05T09:00:00Z",
                             "expires_at": START_MS + 3_600_000, "first_segment": "tokens"}
    started = time.perf_counter()
    assert _call(fake, "GET", "/slow").text == "finally"
    assert time.perf_counter() - started >= 0.025
    cached = _call(fake, "GET", "/cached")
    assert cached.headers["cache-control"] == "no-cache, no-store"
    assert cached.text == "{{not a template here}}"  # no response-template transformer: answered as written


def test_the_translation_of_one_mapping() -> None:
    translated = translate({"request": {"method": "GET", "url": "/a?b=1", "headers": {
        "X-Key": {"matches": "k[0-9]+"}}}, "response": {"status": 200, "jsonBody": {"ok": True}}}, "inline")
    assert translated.stub == {"request": {"method": "GET", "path": {"equals": "/a"}, "url": "/a?b=1",
                                           "headers": {"X-Key": {"matches": "k[0-9]+"}}},
                               "name": "inline", "response": {"status": 200, "json": {"ok": True}},
                               "templates": False}
    loose = translate({"request": {"bodyPatterns": [{"equalToJson": {"a": [1, 2]}, "ignoreExtraElements": True}]},
                       "response": {}}, "arrays")
    assert loose.notes == ["request.bodyPatterns[0]: arrays are matched as fragments (any order, other items "
                           "allowed)"]


@pytest.mark.parametrize(("template", "ours"), [
    ("{{request.path.[1]}}", "{{request.path.1}}"),
    ("{{request.pathSegments.[0]}}", "{{request.path.0}}"),
    ("{{{request.query.page}}}", "{{request.query.page}}"),
    ("{{request.query.[page.size]}}", "{{request.query.[page.size]}}"),
    ("{{request.headers.X-Id}}", "{{request.headers.X-Id}}"),
    ("{{jsonPath request.body '$.items[0].id'}}", "{{request.body.items.0.id}}"),
    ("{{now offset='-3 days'}}", "{{now - 3d}}"),
    ("{{now format='unix'}}", "{{now | epoch_s}}"),
])
def test_handlebars_helpers_translate(template: str, ours: str) -> None:
    assert handlebars(template) == ours


@pytest.mark.parametrize("template", ["{{now format='yyyy-MM-dd'}}", "{{now offset='2 months'}}",
                                      "{{#each request.query.ids}}x{{/each}}", "{{math 1 '+' 2}}"])
def test_handlebars_helpers_refused(template: str) -> None:
    with pytest.raises(Untranslatable):
        handlebars(template)


def test_the_http_import(notes: NotesFake) -> None:
    client = notes.client()
    answer = client.post("/_fake/stubs/import/wiremock", params={"place": "behind"}, json={"mappings": [
        {"request": {"method": "GET", "url": "/notes"}, "response": {"status": 299}},
        {"request": {"method": "GET", "url": "/vendor/new"}, "response": {"status": 200, "body": "new"}},
        {"request": {"method": "GET", "url": "/file"}, "response": {"bodyFileName": "f.json"}},
        {"request": {"method": "GET", "url": "/x"}, "response": {"status": 700}},
    ]})
    assert answer.status_code == 200
    result = answer.json()
    assert [item["stub"]["id"] for item in result["imported"]] == ["s1", "s2"]
    assert [item["source"] for item in result["refused"]] == ["request#2", "request#3"]
    assert "stub response.status: must be from 200 to 599" in result["refused"][1]["reason"]
    assert client.get("/notes").status_code == 200  # behind the model: its route answers
    assert client.get("/vendor/new").text == "new"
    assert client.post("/_fake/stubs/import/wiremock", json={"mappings": {}}).status_code == 400
    assert client.post("/_fake/stubs/import/wiremock", json="x").status_code == 400
    assert client.post("/_fake/stubs/import/wiremock", params={"place": "x"}, json=[]).status_code == 400


def test_which_service_gets_a_folder(tmp_path: Path) -> None:
    (tmp_path / "filings").mkdir()
    (tmp_path / "relay").mkdir()
    both = ["filings", "relay", "video"]
    assert mapping_folders([str(tmp_path)], both, both) == [("filings", tmp_path / "filings"),
                                                            ("relay", tmp_path / "relay")]
    assert mapping_folders([str(tmp_path)], ["video"], both) == [("video", tmp_path)]
    assert mapping_folders([f"relay={tmp_path}"], both, both) == [("relay", tmp_path)]
    for items, served, message in (
            ([str(tmp_path / "nope")], both, "not a folder"),
            ([f"nosuch={tmp_path}"], both, "unknown service 'nosuch'"),
            ([f"video={tmp_path}"], ["relay"], "video is not served"),
            ([str(tmp_path / "relay")], both, "name one (SERVICE=")):
        with pytest.raises(MappingsFolderError, match=re.escape(message)):
            mapping_folders(items, served, both)
    with pytest.raises(MappingsFolderError, match=re.escape("holds no .json mapping files")):
        read_folder(tmp_path / "relay")
