"""What `fakes list --settings` says a setting does is what the fake does. Every setting whose
description promises an answer (a status code, a cut, what is accepted) has a check here that sets
it and sends the request the description is about; a description that starts promising one without
a check here fails `test_every_promise_is_checked`."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from fakes import create_fake, registry

#: a description that states an outcome: an HTTP status, a cut, what is (not) accepted
PROMISE = re.compile(r"(?<![\d,./])[45]\d\d(?![\d,/])|more is|anything else is|accepted|cut to|smallest pageSize")
CLIP = Path(__file__).resolve().parent / "video" / "media" / "clip_2s_240p.mp4"
ANY_WEIGHT = {band: 1.0 for band in ("micro", "small", "medium", "large", "enterprise", "public")}
Check = Callable[[], None]


# -- member-export --------------------------------------------------------------------------------
def member_client(**settings: Any) -> tuple[Any, httpx.Client]:
    fake = create_fake("member-export", **settings)
    member = fake.create_member()
    token = fake.consent(member["id"])["access_token"]
    return fake, fake.client(headers={"Authorization": f"Bearer {token}", "Service-Version": "202312"})


CHANGELOG = ("/rest/memberChangeLogs", {"q": "memberAndApplication"})


def accepted_version() -> None:
    _, client = member_client(accepted_version="202401")
    assert client.get(*CHANGELOG[:1], params=CHANGELOG[1]).status_code == 426
    assert client.get(CHANGELOG[0], params=CHANGELOG[1], headers={"Service-Version": "202401"}).status_code == 200


def changelog_max_count() -> None:
    _, client = member_client(changelog_max_count=20)
    assert client.get(CHANGELOG[0], params={**CHANGELOG[1], "count": 20}).status_code == 200
    assert client.get(CHANGELOG[0], params={**CHANGELOG[1], "count": 21}).status_code == 400


def member_daily_limit() -> None:
    _, client = member_client(member_daily_limit=1)
    assert client.get(CHANGELOG[0], params=CHANGELOG[1]).status_code == 200
    assert client.get(CHANGELOG[0], params=CHANGELOG[1]).status_code == 429


# -- filings --------------------------------------------------------------------------------------
def filings_client(**settings: Any) -> tuple[Any, httpx.Client]:
    fake = create_fake("filings", scale="small", **settings)
    return fake, fake.client(headers={"X-API-Key": fake.create_key("level2")})


def filings_max_page_size() -> None:
    fake, client = filings_client(default_page_size=10, max_page_size=30)
    answer = client.get("/filings/", params={"page_size": 31})
    assert answer.status_code == 200 and len(answer.json()["results"]) == 30, answer.text[:200]
    assert [v["id"] for v in fake.verdicts()] == ["filings/lenient-input"]


def filings_webhook_other_hosts() -> None:
    hook = {"url": "https://hooks.example.com/in"}
    assert filings_client(webhook_other_hosts="refuse")[1].post("/webhooks/", json=hook).status_code == 400
    assert filings_client(webhook_other_hosts="record")[1].post("/webhooks/", json=hook).status_code == 201


def agent_sandbox_calls() -> None:
    fake = create_fake("filings", scale="small", agent_sandbox_calls=1)
    client = fake.client()
    key = client.post("/agent/signup/", json={"email": "bot@example.com", "agent_name": "bot"}).json()["api_key"]
    assert client.get("/languages/", headers={"X-API-Key": key}).status_code == 200
    assert client.get("/languages/", headers={"X-API-Key": key}).status_code == 402


# -- enrichment -----------------------------------------------------------------------------------
def enrichment_client(**settings: Any) -> httpx.Client:
    fake = create_fake("enrichment", **settings)
    return fake.client(headers={"Authorization": f"Bearer {fake.create_account('sub_299')['api_key']}"})


DETAILS = ("/v1/company/details", {"website": "stripe.com"})


def unknown_share() -> None:
    answer = enrichment_client(unknown_share=1.0, coverage_weights=ANY_WEIGHT).get(DETAILS[0], params=DETAILS[1])
    assert answer.status_code == 404 and answer.headers["x-service-credit-cost"] == "0"
    assert enrichment_client(unknown_share=0.0).get(DETAILS[0], params=DETAILS[1]).status_code == 200


def charge_failed_like_real() -> None:
    answer = enrichment_client(unknown_share=1.0, coverage_weights=ANY_WEIGHT,
                               charge_failed_like_real=True).get(DETAILS[0], params=DETAILS[1])
    assert answer.status_code == 404 and float(answer.headers["x-service-credit-cost"]) > 0


def transient_failure_share() -> None:
    answer = enrichment_client(transient_failure_share=1.0).get("/v1/employee/work-email",
                                                                 params={"first_name": "Ada", "domain": "stripe.com"})
    assert answer.status_code == 503 and answer.headers["retry-after"] == "5"


def retired_paths() -> None:
    fake = create_fake("enrichment", retired_paths=["/old/*"])
    answer = fake.client().get("/old/anything")  # no key: the 410 comes before the key check
    assert answer.status_code == 410 and "deprecated" in answer.text
    assert fake.client().get("/proxycurl/api/v2/linkedin").status_code != 410


# -- relay ----------------------------------------------------------------------------------------
def relay_client(balance_micro: int | None = None, **settings: Any) -> httpx.Client:
    fake = create_fake("relay", **settings)
    team = fake.create_team(name="truth", balance_micro=balance_micro)
    return fake.client(headers={fake.model.h.token: team["token"]})


BILLED = ("/call/firmdata.companies.enrich", {"domain": "northwind.com"})


def error_envelope() -> None:
    flat = relay_client(0).get(BILLED[0], params=BILLED[1])
    nested = relay_client(0, error_envelope="detail").get(BILLED[0], params=BILLED[1])
    assert flat.status_code == nested.status_code == 402
    assert "balance_micro" in flat.json() and "balance_micro" in nested.json()["detail"]


def topup_url() -> None:
    answer = relay_client(0, topup_url="/pay-here").get(BILLED[0], params=BILLED[1])
    assert answer.status_code == 402 and answer.json()["topup_url"] == "/pay-here"


def max_per_second() -> None:
    client = relay_client(max_per_second=1, retry_after_s=7)
    assert client.get(BILLED[0], params=BILLED[1]).status_code == 200
    saturated = client.get(BILLED[0], params=BILLED[1])
    assert saturated.status_code == 503 and saturated.headers["retry-after"] == "7"


def upstream_rate_limit() -> None:
    client = relay_client(upstream_rate_limit=1)
    assert client.get(BILLED[0], params={"domain": "northwind.com"}).status_code != 429
    assert client.get(BILLED[0], params={"domain": "contoso.com"}).status_code == 429


def firewall() -> None:
    sql = ("/call/jobsignal.alerts.create", {"domain": "northwind.com"}, b"DELETE FROM leads WHERE id = 3")
    blocked = relay_client().post(sql[0], params=sql[1], content=sql[2])
    assert blocked.status_code == 403 and blocked.headers["content-type"].startswith("text/html")
    assert relay_client(firewall=False).post(sql[0], params=sql[1], content=sql[2]).status_code != 403


# -- video ----------------------------------------------------------------------------------------
def video_project(**settings: Any) -> tuple[dict[str, Any], Any]:
    fake = create_fake("video", **settings)
    return fake.create_project(), fake


def environment() -> None:
    project, fake = video_project(environment="production")
    assert fake.client(auth=(project["sandbox_key"], "")).get("/videos").status_code == 401
    assert fake.client(auth=(project["production_key"], "")).get("/videos").status_code == 200


def max_upload_bytes() -> None:
    project, fake = video_project(max_upload_bytes=1000)
    client = fake.client(auth=(project["sandbox_key"], ""))
    video = client.post("/videos", json={"title": "too big"}).json()["videoId"]
    answer = client.post(f"/videos/{video}/source", files={"file": ("clip.mp4", CLIP.read_bytes(), "video/mp4")})
    assert answer.status_code == 400 and answer.json()["type"].endswith("/uploaded-file-too-large")


def video_page_size() -> None:
    project, fake = video_project(min_page_size=5, max_page_size=50)
    client = fake.client(auth=(project["sandbox_key"], ""))
    for size, status in ((4, 400), (5, 200), (50, 200), (51, 400)):
        assert client.get("/videos", params={"pageSize": size}).status_code == status, size


def video_webhook_other_hosts() -> None:
    hook = {"events": ["video.encoding.quality.completed"], "url": "https://hooks.example.com/in"}
    for mode, status in (("refuse", 400), ("record", 201)):
        project, fake = video_project(webhook_other_hosts=mode)
        assert fake.client(auth=(project["sandbox_key"], "")).post("/webhooks", json=hook).status_code == status


def cors_origins() -> None:
    preflight = {"Origin": "http://127.0.0.1:5173", "Access-Control-Request-Method": "GET",
                 "Access-Control-Request-Headers": "authorization"}
    for origins, status in ((["*"], 204), (["http://127.0.0.1:5173"], 204), ([], 405)):
        _, fake = video_project(cors_origins=origins)
        assert fake.client().options("/videos", headers=preflight).status_code == status, origins


def not_ready_status() -> None:
    for status in (202, 404):
        project, fake = video_project(not_ready_status=status)
        client = fake.client(auth=(project["sandbox_key"], ""))
        video = client.post("/videos", json={"title": "waiting"}).json()["videoId"]
        client.post(f"/videos/{video}/source", files={"file": ("clip.mp4", CLIP.read_bytes(), "video/mp4")})
        assert fake.client().get(f"/vod/{video}/hls/manifest.m3u8").status_code == status


#: each setting's check, and the words of its description that the check proves
CHECKS: dict[tuple[str, str], tuple[Check, str]] = {
    ("member-export", "accepted_version"): (accepted_version, r"anything else is 426"),
    ("member-export", "changelog_max_count"): (changelog_max_count, r"largest accepted changelog count"),
    ("member-export", "member_daily_limit"): (member_daily_limit, r"per UTC day before 429"),
    ("filings", "max_page_size"): (filings_max_page_size, r"larger one is cut to it .* filings/lenient-input"),
    ("filings", "webhook_other_hosts"): (filings_webhook_other_hosts, r"record .* or refuse \(400"),
    ("filings", "agent_sandbox_calls"): (agent_sandbox_calls, r"before it needs its owner \(402\)"),
    ("enrichment", "unknown_share"): (unknown_share, r"unknown: 404"),
    ("enrichment", "charge_failed_like_real"): (charge_failed_like_real, r"charge .* 404-no-data answers"),
    ("enrichment", "transient_failure_share"): (transient_failure_share, r"503 with Retry-After"),
    ("enrichment", "retired_paths"): (retired_paths, r"answer 410 .*before the key check"),
    ("relay", "error_envelope"): (error_envelope, r"402 body .* \{detail: \{error"),
    ("relay", "topup_url"): (topup_url, r"topup_url of the 402 body"),
    ("relay", "max_per_second"): (max_per_second, r"saturated \(503\)"),
    ("relay", "retry_after_s"): (max_per_second, r"Retry-After of a saturation 503"),
    ("relay", "upstream_rate_limit"): (upstream_rate_limit, r"before its own 429"),
    ("relay", "firewall"): (firewall, r"SQL or HTML is a 403 HTML page"),
    ("video", "environment"): (environment, r"other environment's keys are refused with 401"),
    ("video", "max_upload_bytes"): (max_upload_bytes, r"more is uploaded-file-too-large"),
    ("video", "webhook_other_hosts"): (video_webhook_other_hosts, r"refuse \(400 at subscription\) or record"),
    ("video", "min_page_size"): (video_page_size, r"smallest pageSize"),
    ("video", "cors_origins"): (cors_origins, r"\[\] none .*a preflight then gets the API's 405"),
    ("video", "not_ready_status"): (not_ready_status, r"answers: 202 .* or 404"),
}
#: promises checked by a test of the service's own suite (concurrency cannot be shown in process)
CHECKED_ELSEWHERE = {
    ("member-export", "application_daily_limit"): ("tests/member_export/test_throttles.py",
                                                   "test_the_application_limit_counts_every_member_of_the_application"),
    ("relay", "max_in_flight"): ("tests/relay/test_control_and_state.py", "test_saturation_over_http"),
}


def promises() -> list[tuple[str, str, str]]:
    return [(name, row["name"], row["help"]) for name in registry.service_names()
            for row in registry.fake_class(name).settings_class.describe() if PROMISE.search(row["help"])]


def test_every_promise_is_checked() -> None:
    promised = {(service, setting) for service, setting, _ in promises()}
    unchecked = promised - set(CHECKS) - set(CHECKED_ELSEWHERE)
    assert not unchecked, f"settings whose description promises an answer without a check here: {sorted(unchecked)}"
    assert not set(CHECKS) - promised, f"checks of settings that promise nothing (any more): {set(CHECKS) - promised}"
    root = Path(__file__).resolve().parents[1]
    for path, test in CHECKED_ELSEWHERE.values():
        assert f"def {test}(" in (root / path).read_text(), f"{path}::{test} is gone"


@pytest.mark.parametrize(("service", "setting"), list(CHECKS), ids=[f"{s}.{k}" for s, k in CHECKS])
def test_the_setting_does_what_its_description_says(service: str, setting: str) -> None:
    check, promise = CHECKS[(service, setting)]
    description = {row["name"]: row["help"] for row in registry.fake_class(service).settings_class.describe()}[setting]
    assert re.search(promise, description), f"{service}.{setting} no longer says {promise!r}: {description!r}"
    check()
