"""The official ``ninjapear`` client (1.6.0) against the served fake, with only its host changed.

Every method of the client is called and must parse the fake's answer, the credit balance after a
fractional charge included.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

import ninjapear
import pytest
from ninjapear.api.updates_api_api import UpdatesAPIApi
from ninjapear.exceptions import NotFoundException, UnauthorizedException

from fakes.enrichment import EnrichmentFake


@pytest.fixture
def served() -> Iterator[tuple[EnrichmentFake, str, ninjapear.ApiClient]]:
    fake = EnrichmentFake(seed=0)
    key = fake.create_account("sub_299")["api_key"]
    with fake.serve() as base_url:
        yield fake, key, ninjapear.ApiClient(ninjapear.Configuration(host=base_url, access_token=key))


def test_every_data_method_parses(served: tuple[EnrichmentFake, str, ninjapear.ApiClient]) -> None:
    _fake, _key, api = served
    company = ninjapear.CompanyAPIApi(api)
    details = company.get_company_details(website="stripe.com", include_employee_count=True, follower_count="include")
    assert details.name and details.employee_count_range_min is not None and details.follower_count is not None
    assert details.executives and details.logo_url
    assert company.get_company_funding(website="stripe.com").credit_cost is not None
    logo = company.get_company_logo(website="stripe.com")
    assert bytes(logo[:8]) == b"\x89PNG\r\n\x1a\n"
    assert company.get_company_updates(website="stripe.com").updates is not None
    assert company.get_company_website(company_name="Stripe").website == "https://www.stripe.com"
    assert company.get_employee_count(website="stripe.com").employee_count
    assert ninjapear.CompetitorAPIApi(api).get_competitor_listing(website="stripe.com").competitors is not None
    checked = ninjapear.ContactAPIApi(api).check_disposable_email(email="someone@gmail.com")
    assert checked.is_free_email is True and checked.is_disposable_email is False
    listing = ninjapear.CustomerAPIApi(api).get_customer_listing(website="stripe.com", page_size=5,
                                                                  quality_filter=True)
    assert listing.customers is not None
    employee = ninjapear.EmployeeAPIApi(api)
    ceo = employee.get_person_profile(employer_website="stripe.com", role="CEO")
    assert ceo.full_name and ceo.work_experience
    assert employee.get_person_profile(id=ceo.id).full_name == ceo.full_name
    assert employee.get_work_email(first_name="Ann", last_name="Lee", domain="stripe.com") is not None


def test_credit_balance_parses_after_a_fractional_charge(served: tuple[EnrichmentFake, str,
                                                                       ninjapear.ApiClient]) -> None:
    fake, key, api = served
    world = fake.model.world
    miss = next(n for n in range(100) if not world.work_email("stripe.com", f"Cy{n}", "Ro", 0.8))
    email = ninjapear.EmployeeAPIApi(api).get_work_email(first_name=f"Cy{miss}", last_name="Ro", domain="stripe.com")
    assert email.work_email is None
    assert Decimal(fake.account(key)["balance_text"]) == Decimal("2989.5")
    assert ninjapear.MetaAPIApi(api).get_credit_balance().credit_balance == 2989


def test_every_monitor_method_parses(served: tuple[EnrichmentFake, str, ninjapear.ApiClient]) -> None:
    fake, _key, api = served
    monitor = ninjapear.MonitorAPIApi(api)
    feed = monitor.create_feed(ninjapear.CreateFeedRequest(
        name="Rivals", targets=[ninjapear.CreateFeedRequestTargetsInner(website_url="stripe.com")]))
    assert feed.id and feed.targets and not feed.is_suspended
    assert [f.id for f in monitor.list_feeds().feeds or []] == [feed.id]
    target = monitor.add_target(feed.id, ninjapear.AddTargetRequest(website_url="acme.com"))
    updated = monitor.update_target(feed.id, target.id, ninjapear.UpdateTargetRequest(
        settings=ninjapear.TargetSettings(frequency_days=2, monitor_x=False)))
    assert updated.settings is not None and updated.settings.frequency_days == 2
    assert monitor.get_feed(feed.id).name == "Rivals"
    assert monitor.update_feed(feed.id, ninjapear.UpdateFeedRequest(name="Watch")).name == "Watch"
    fake.advance(7 * 86_400)
    assert feed.rss_url is not None
    rss = monitor.get_rss_feed(feed.id, token=feed.rss_url.split("token=", 1)[1])
    assert rss.startswith("<?xml") and "<item>" in rss
    assert monitor.delete_target(feed.id, target.id).message == "Target deleted."
    assert monitor.delete_feed(feed.id).message == "Feed deleted."
    updates = UpdatesAPIApi(api)  # the client's second spelling of the monitor paths
    assert updates.list_feeds().feeds == []


def test_errors_arrive_as_the_clients_exceptions(served: tuple[EnrichmentFake, str, ninjapear.ApiClient]) -> None:
    _fake, _key, api = served
    with pytest.raises(NotFoundException):
        ninjapear.CompanyAPIApi(api).get_company_details(website="nobody.invalid")
    anonymous = ninjapear.ApiClient(ninjapear.Configuration(host=api.configuration.host, access_token="wrong"))
    with pytest.raises(UnauthorizedException) as caught:
        ninjapear.MetaAPIApi(anonymous).get_credit_balance()
    assert caught.value.status == 401 and "error" in (caught.value.body or "")
