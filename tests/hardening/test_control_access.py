"""Issue 33, item 7 without a browser: which Host, Origin and body type the control plane answers
over a socket (the browser's side is tests/dashboard/test_cross_site.py), the settings that widen
it, and what stays as it was (the public API, calls in process, the gateway's names)."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import httpx
import pytest

from fakes.filings import FilingsFake
from fakes.kernel.access import ControlAccess
from fakes.kernel.gateway import GatewayApp
from fakes.kernel.server import ServerThread
from fakes.member_export import MemberExportFake
from tests.support.serving import clean_env, fakes_command, free_port, running


@pytest.mark.parametrize("host", ["127.0.0.1:8701", "localhost", "LOCALHOST:1", "filings.localhost:8700",
                                  "[::1]:8701", "10.1.2.3", "[2001:db8::1]", "testserver", "fakes:8701",
                                  "contract-fakes", "gateway:8700", "host.docker.internal:8701", "member-export",
                                  None])
def test_hosts_answered_by_default(host: str | None) -> None:
    assert ControlAccess(hosts=[], names=["member-export"]).host_allowed(host)


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8701", "127.0.0.1.nip.io", "localhost.evil.example",
                                  "fakes-host:8700", "filings", "[::1"])
def test_hosts_refused_by_default(host: str) -> None:
    assert not ControlAccess(hosts=[], names=["member-export"]).host_allowed(host)


def test_allowed_hosts_names_domains_and_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    access = ControlAccess(hosts="fakes-host, *.svc.cluster.local")
    assert access.host_allowed("fakes-host:8700") and access.host_allowed("fakes.ci.svc.cluster.local")
    assert not access.host_allowed("svc.cluster.local.evil.example")
    assert ControlAccess(hosts=["*"]).host_allowed("anything.example")
    monkeypatch.setenv("FAKES_ALLOWED_HOSTS", "from-env")
    assert ControlAccess().host_allowed("from-env:1") and not ControlAccess(hosts=[]).host_allowed("from-env")
    for bad in ("a/b", "host:8700", "*.", "**", ".example.com", "a b"):
        with pytest.raises(ValueError, match="not a host name"):
            ControlAccess(hosts=[bad])


@pytest.mark.parametrize(("origin", "host", "allowed"), [
    ("http://127.0.0.1:8701", "127.0.0.1:8701", True),
    ("http://localhost", "localhost", True),
    ("http://localhost:80", "localhost:80", True),
    ("https://fakes.example.com", "fakes.example.com", True),  # behind a TLS proxy: the Host has no port
    ("http://127.0.0.1:9999", "127.0.0.1:8701", False),          # another port of the same host
    ("http://localhost:8701", "127.0.0.1:8701", False),          # another name of the same server
    ("null", "127.0.0.1:8701", False),
    ("http://evil.example", "127.0.0.1:8701", False),
])
def test_an_origin_is_the_fakes_own(origin: str, host: str, allowed: bool) -> None:
    assert ControlAccess(hosts=[], origins=[]).origin_allowed(origin, host) is allowed


def test_allowed_origins() -> None:
    access = ControlAccess(hosts=[], origins="https://fakes.example.com:8443")
    assert access.origin_allowed("https://fakes.example.com:8443", "127.0.0.1:8701")
    assert not access.origin_allowed("https://fakes.example.com", "127.0.0.1:8701")
    with pytest.raises(ValueError, match="not an origin"):
        ControlAccess(origins=["fakes.example.com"])


def _refusal(answer: httpx.Response, status: int, code: str) -> None:
    assert answer.status_code == status, answer.text
    assert answer.json()["error"] == code


def test_over_a_socket_the_control_plane_refuses_and_the_api_answers() -> None:
    fake = MemberExportFake()
    with fake.serve() as base, httpx.Client(base_url=base) as http:
        foreign = {"Host": "evil.example"}
        _refusal(http.get("/_fake/state", headers=foreign), 421, "unknown_host")
        _refusal(http.get("/_w/job/_fake/state", headers=foreign), 421, "unknown_host")
        assert fake.worlds.ids() == []  # type: ignore[union-attr]  # refused before any world
        assert http.get("/openapi.json", headers=foreign).status_code == 200  # the public API answers any name
        _refusal(http.post("/_fake/reset", headers={"Origin": "http://127.0.0.1:1"}), 403, "foreign_origin")
        _refusal(http.get("/_fake/clock", headers={"Origin": "null"}), 403, "foreign_origin")
        same = http.post("/_fake/clock", json={"advance_seconds": 60}, headers={"Origin": base})
        assert same.status_code == 200, same.text
        for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
            _refusal(http.post("/_fake/clock", content=b'{"advance_seconds": 60}', headers={"Content-Type": kind}),
                     415, "unsupported_media_type")
        assert http.post("/_fake/clock", content=b'{"advance_seconds": 60}',
                         headers={"Content-Type": "application/merge-patch+json"}).status_code == 200
        assert http.post("/_fake/reset").status_code == 200  # no body, no type: a program's call
        # in process nothing of it applies: no browser reaches a fake there
        inside = fake.client(base_url="http://api.example.com")
        assert inside.post("/_fake/clock", content=b'{"advance_seconds": 1}',
                           headers={"Content-Type": "text/plain", "Origin": "null"}).status_code == 200


def test_the_gateway_answers_its_names_and_refuses_others() -> None:
    fakes: dict[str, Any] = {"member-export": MemberExportFake(prefix="/member-export"),
                             "filings": FilingsFake(prefix="/filings", scale="small")}
    with ServerThread([(GatewayApp(fakes), "127.0.0.1", 0)]) as ((host, port),), \
            httpx.Client(base_url=f"http://{host}:{port}") as http:
        for name in ("gateway", "fakes:8700", "127.0.0.1", "localhost"):  # by prefix
            assert http.get("/_fake/health", headers={"Host": name}).status_code == 200, name
            assert http.get("/filings/_fake/health", headers={"Host": name}).status_code == 200, name
        for name in ("filings:8700", "member-export"):  # a compose alias: routed by its name
            assert http.get("/_fake/health", headers={"Host": name}).status_code == 200, name
        assert http.get("/_fake/health", headers={"Host": "filings.localhost:8700"}).json()["service"] == "filings"
        _refusal(http.get("/_fake/health", headers={"Host": "evil.example"}), 421, "unknown_host")
        _refusal(http.get("/filings/_fake/health", headers={"Host": "evil.example"}), 421, "unknown_host")


def test_fakes_serve_answers_the_names_it_is_given() -> None:
    port = free_port()
    env = {**clean_env(), "FAKES_ALLOWED_HOSTS": "fakes-host"}
    with running([fakes_command(), "serve", "--only", "member-export", "--port", str(port), "--clock", "manual",
                  "--allowed-origins", "https://fakes.example.com"], env) as served:
        served.wait_until_up([f"http://127.0.0.1:{port}/_fake/health"])
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as http:
            assert http.get("/_fake/health", headers={"Host": "fakes-host:8701"}).status_code == 200
            _refusal(http.get("/_fake/health", headers={"Host": "other-host"}), 421, "unknown_host")
            assert http.get("/_fake/health", headers={"Origin": "https://fakes.example.com"}).status_code == 200


def test_a_bad_allowed_host_is_one_line_and_exit_status_2() -> None:
    done = subprocess.run([sys.executable, "-m", "fakes", "serve", "--allowed-hosts", "fakes-host:8700"],
                          capture_output=True, text=True, env=clean_env(), timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "--allowed-hosts" in done.stderr and "not a host name" in done.stderr
