"""What a fake advertises (next links, asset and logo URLs, form actions) follows the scheme and host
the request came in on: over HTTPS it is https:// on that port, on the same fake's HTTP port http://."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from fakes import create_fake
from fakes.kernel.fake import Fake
from fakes.kernel.tls import ServerCertificate, local_certificate


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> ServerCertificate:
    return local_certificate(tmp_path_factory.mktemp("tls"))


@contextlib.contextmanager
def both_schemes(fake: Fake, certificate: ServerCertificate) -> Iterator[list[httpx.Client]]:
    """The fake on an HTTP port and an HTTPS port at once: a client of each."""
    with fake.serve() as plain, fake.serve(tls=certificate.context) as secure, \
            httpx.Client(base_url=plain) as one, \
            httpx.Client(base_url=secure.replace("127.0.0.1", "localhost"), verify=certificate.client_context()) as two:
        yield [one, two]


def filings_next(fake: Any, client: httpx.Client) -> str:
    key = fake.demo_credentials()["standard_api_key"]
    body = client.get("/filings/", params={"page_size": 1}, headers={"X-API-Key": key}).json()
    return str(body["next"])


def enrichment_logo(fake: Any, client: httpx.Client) -> str:
    key = fake.demo_credentials()["subscription_api_key"]
    body = client.get("/api/v1/company/details", params={"website": "stripe.com"},
                      headers={"Authorization": f"Bearer {key}"}).json()
    return str(body["logo_url"])


def relay_form(fake: Any, client: httpx.Client) -> str:
    page = client.get("/login", params={"cli": "login-id-123"}).text
    return page.split('action="', 1)[1].split('"', 1)[0]


def video_hls(fake: Any, client: httpx.Client) -> str:
    key = fake.create_project()["sandbox_key"]
    return str(client.post("/videos", json={"title": "t"}, auth=(key, "")).json()["assets"]["hls"])


CASES: dict[str, tuple[dict[str, Any], Callable[[Any, httpx.Client], str]]] = {
    "filings": ({"scale": "small"}, filings_next),
    "enrichment": ({}, enrichment_logo),
    "relay": ({}, relay_form),
    "video": ({}, video_hls),
}


@pytest.mark.parametrize("service", list(CASES))
def test_advertised_urls_follow_the_scheme_and_host_of_the_request(service: str,
                                                                    certificate: ServerCertificate) -> None:
    settings, advertised = CASES[service]
    fake = create_fake(service, **settings)
    with both_schemes(fake, certificate) as clients:
        for client in clients:
            url = advertised(fake, client)
            assert url.startswith(str(client.base_url).rstrip("/") + "/"), (str(client.base_url), url)


def test_the_dashboard_cookie_is_secure_over_https(certificate: ServerCertificate) -> None:
    fake = create_fake("video", control_token="s3cret")
    with both_schemes(fake, certificate) as (plain, secure):
        cookies = [client.get("/_fake/ui", params={"token": "s3cret"}).headers["set-cookie"]
                   for client in (plain, secure)]
    assert "Secure" not in cookies[0] and "Secure" in cookies[1]
