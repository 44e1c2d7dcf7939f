"""The generated catalogue (size, format, determinism, the seed's rate table, unpriced and routed
entries), the catalogue API, the plain-text indexes and /install.sh."""

from __future__ import annotations

import re
import shutil
import subprocess
from typing import Any

import httpx
import pytest

from fakes.relay import RelayFake

RATE_TABLE = {  # the seed's per-call rates, as micro-USD catalogue prices
    "mailscout.people.email.find": ("per_success", 8_900),
    "mailscout.email.verify": ("per_call", 3_000),
    "peoplegraph.people.match.email": ("per_success", 26_000),
    "peoplegraph.people.enrich": ("per_success", 28_000),
    "firmdata.companies.enrich": ("per_success", 10_000),
    "firmdata.companies.people.list": ("per_call", 25_000),
    "firmdata.companies.lookalikes.search": ("per_call", 49_000),
    "jobsignal.companies.jobs.list": ("per_call", 20_000),
    "profilescope.people.email.from-profile": ("per_success", 19_000),
}
ID_FORMAT = re.compile(r"^[a-z0-9]+(\.[a-z0-9_-]+){2,}$")


def test_catalogue_size_and_format(fake: RelayFake) -> None:
    entries = fake.model.all_entries()
    providers = fake.model.all_providers()
    assert 55 <= len(providers) <= 65
    assert 2_800 <= len(entries) <= 3_000
    for entry in entries:
        assert ID_FORMAT.match(entry["id"]), entry["id"]
        assert entry["method"] in ("GET", "POST") and entry["path"].startswith("/")
        for spec in entry["input"]["queryParams"].values():
            assert set(spec) == {"type", "required", "note", "example"}
        if entry["cost"] is not None:
            assert entry["cost"]["type"] in ("per_call", "per_success", "per_result", "free")
            assert isinstance(entry["cost"]["value"], int)
    assert sum(1 for e in entries if e["cost"] is None) > 100  # entries with no published price
    assert {e["platform"] for e in entries} >= {"linkedin", "routed", "web"}


def test_the_seed_rate_table_is_in_the_catalogue_with_exact_prices(fake: RelayFake) -> None:
    for entry_id, (kind, micro) in RATE_TABLE.items():
        cost = fake.model.entry(entry_id)["cost"]
        assert (cost["type"], cost["value"]) == (kind, micro), entry_id
        assert cost["usd"] == micro / 1_000_000


def test_the_catalogue_is_fixed_by_the_seed() -> None:
    first, again, other = RelayFake(seed=0), RelayFake(seed=0), RelayFake(seed=1)
    ids = [e["id"] for e in first.model.all_entries()]
    assert ids == [e["id"] for e in again.model.all_entries()]
    assert ids != [e["id"] for e in other.model.all_entries()]
    for entry_id in RATE_TABLE:  # the contract constants do not depend on the seed
        assert other.model.entry(entry_id)["cost"] == first.model.entry(entry_id)["cost"]


def test_routed_capabilities_carry_the_relay_name() -> None:
    assert RelayFake().model.entry("proxy.people.email.find")["candidates"] == [
        "mailscout.people.email.find", "peoplegraph.people.email.find"]
    assert RelayFake(header_prefix="X-Treg").model.entry("treg.people.email.find") is not None


def test_search_endpoint_and_platforms(fake: RelayFake) -> None:
    with fake.client() as http:
        found = http.get("/catalog/search", params={"q": "work email find", "limit": 5}).json()
        assert set(found) == {"query", "count", "total", "results", "hints"}
        assert found["count"] == 5 and found["total"] >= 5
        assert found["results"][0]["id"] == "mailscout.people.email.find"
        assert http.get("/catalog/search", params={"limit": 101}).status_code == 400
        nothing = http.get("/catalog/search", params={"q": "zzzzqqq"}).json()
        assert nothing["count"] == 0 and nothing["hints"]
        detail = http.get("/catalog/endpoints/mailscout.people.email.find").json()
        assert detail["endpoint"]["cost"]["value"] == 8_900
        assert detail["call_template"].startswith("GET /call/mailscout.people.email.find?domain=<domain>")
        assert detail["example_response"]["email"].endswith("@northwind.com")
        assert http.get("/catalog/endpoints/nope.a.b").json()["error"] == "unknown_endpoint"
        platforms = http.get("/catalog/platforms").json()["platforms"]
        assert len(platforms) >= 60 and {"slug", "endpoints", "priced", "display_name"} <= set(platforms[0])


def test_access_view_follows_the_ladder(fake: RelayFake, team: dict[str, Any]) -> None:
    with fake.client(headers={"X-Proxy-Token": team["token"]}) as http:
        assert http.get("/catalog/endpoints/mailscout.email.verify/access").json()["tier"] == "platform"
        assert http.get("/catalog/endpoints/profilescope.people.posts.list/access").json()["tier"] == "none"
        fake.add_secret(team["team_id"], "mailscout", "s")
        assert http.get("/catalog/endpoints/mailscout.email.verify/access").json()["tier"] == "credential"


def test_plain_text_indexes_with_markdown_variants(fake: RelayFake, client: httpx.Client) -> None:
    client.get("/call/firmdata.companies.enrich", params={"domain": "northwind.com"})
    client.get("/call/firmdata.companies.enrich", params={"domain": "gone.invalid"})
    for page in ("/use-cases", "/workflows", "/tools/mailscout"):
        text = client.get(page)
        markdown = client.get(page + ".md")
        assert text.headers["content-type"].startswith("text/plain")
        assert markdown.headers["content-type"].startswith("text/markdown")
        assert markdown.text.startswith("# ") and not text.text.startswith("# ")
    use_cases = client.get("/use-cases.md").text
    assert "| `firmdata.companies.enrich` | $0.0100 per_success | 50% of 2 |" in use_cases
    assert "$0.0089" in use_cases
    llms = client.get("/llms.txt").text
    for link in ("/use-cases.md", "/workflows.md", "/tools/", "/install.sh", "/mcp/v2/"):
        assert link in llms
    assert client.get("/tools/nope.md").status_code == 404


def test_install_script_is_posix_and_downloads_nothing(client: httpx.Client, tmp_path: Any) -> None:
    response = client.get("/install.sh")
    assert response.status_code == 200 and response.text.startswith("#!/bin/sh\n")
    assert "downloads nothing" in response.text
    for fetcher in ("curl", "wget", "pip install tools-registry &&", "| sh"):
        assert fetcher not in response.text.replace("echo \"  pip install tools-registry\"", "")
    script = tmp_path / "install.sh"
    script.write_text(response.text)
    shell = shutil.which("sh")
    if shell is None:
        pytest.skip("no sh on this machine")
    assert subprocess.run([shell, "-n", str(script)], capture_output=True).returncode == 0
    ran = subprocess.run([shell, str(script)], capture_output=True, text=True, timeout=20)
    assert ran.returncode == 0 and "downloads nothing" in ran.stdout
