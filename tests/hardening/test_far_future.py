"""Issue 23, item 2: the clock's last instant (the kernel's MAX_EPOCH_MS, the end of year 9999) is
one every service can represent and format. A clock there, or just before it, leaves every
service answering its scenarios without a 5xx, even where an instant it derives (video's
``deletesAt``, filings' quota reset) lies beyond; far-future instants keep their milliseconds."""

from __future__ import annotations

import httpx
import pytest

from fakes import registry
from fakes.kernel.clock import MAX_EPOCH_MS, Clock, iso_ms, utc_datetime

from .realistic import drive, realistic_fake, server_errors

SERVICES = registry.service_names()
DAY_MS = 86_400_000


def test_far_future_instants_keep_their_milliseconds() -> None:
    assert iso_ms(MAX_EPOCH_MS) == "9999-12-31T23:59:59.999Z"  # not ...59.998Z (a float's rounding)
    assert iso_ms(253_402_300_799_001) == "9999-12-31T23:59:59.001Z"
    assert iso_ms(MAX_EPOCH_MS - 999) == "9999-12-31T23:59:59Z"
    assert iso_ms(1_767_603_600_123) == "2026-01-05T09:00:00.123Z"
    clock = Clock("manual", start_ms=MAX_EPOCH_MS)
    assert clock.describe()["now"] == "9999-12-31T23:59:59.999Z"
    assert clock.now().microsecond == 999_000


def test_an_instant_past_the_last_one_is_formatted_as_the_last_one() -> None:
    assert iso_ms(MAX_EPOCH_MS + 30 * DAY_MS) == "9999-12-31T23:59:59.999Z"
    assert utc_datetime(MAX_EPOCH_MS * 2).year == 9999
    assert utc_datetime(-(10**20)).year == 1
    assert utc_datetime(-1).isoformat() == "1969-12-31T23:59:59.999000+00:00"


@pytest.mark.parametrize("before_the_end_ms", [0, 1000, 3 * DAY_MS])
@pytest.mark.parametrize("service", SERVICES)
def test_every_service_answers_at_the_end_of_time(service: str, before_the_end_ms: int) -> None:
    fake = realistic_fake(service)
    client = fake.client()
    assert client.post("/_fake/clock", json={"set_epoch_ms": MAX_EPOCH_MS - before_the_end_ms}).status_code == 200
    fake.clear_journal()
    drive(fake)  # every documented flow again, creating, listing and expiring near the end of time
    method, target = fake.sample_request()
    fake.client(headers=fake.auth_headers()).request(method, target)
    assert server_errors(fake) == []
    realistic_fake(service).import_state(fake.export_state())  # what it holds there can be restored


@pytest.mark.parametrize("service", SERVICES)
def test_from_outside_the_last_millisecond_leaves_no_5xx(service: str) -> None:
    fake = realistic_fake(service)
    with fake.serve() as url, httpx.Client(base_url=url) as client:
        moved = client.post("/_fake/clock", json={"set_epoch_ms": MAX_EPOCH_MS})
        assert moved.json()["now"] == "9999-12-31T23:59:59.999Z"
        assert client.post("/_fake/clock", json={"set_epoch_ms": MAX_EPOCH_MS + 1}).status_code == 400
        assert client.post("/_fake/clock", json={"advance_seconds": 1}).status_code == 409
        fake.clear_journal()
        drive(fake, client)
    assert server_errors(fake) == []
