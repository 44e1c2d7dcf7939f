"""`fakes serve` over HTTPS: beside HTTP (--https-port) or instead of it (--https), per fake and on
the gateway, with a certificate of the local CA (--tls-dir) or one's own; bad TLS flags are one line
and exit 2."""

from __future__ import annotations

import importlib.util
import signal
import ssl
import time
from pathlib import Path

import httpx
import pytest

from fakes import create_fake
from fakes.kernel.cli import main
from fakes.kernel.tls import local_certificate
from tests.support.serving import ROOT, clean_env, fakes_command, free_port_block, parse_banner, running

SMALL = ["--set", "filings.scale=small"]


def trusting(ca: Path) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(ca))


def wait_https(url: str, ca: Path, server: object, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            httpx.get(url, verify=trusting(ca), timeout=2.0, trust_env=False)
            return
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise AssertionError(f"{url} did not answer over HTTPS:\n{server.describe()}") from None  # type: ignore[attr-defined]
            time.sleep(0.05)


def test_https_beside_http_per_fake_with_the_local_ca_and_links_on_each_scheme(tmp_path: Path) -> None:
    first = free_port_block(4)
    tls_dir = tmp_path / "tls"
    argv = [fakes_command(), "serve", "--only", "filings,video", *SMALL, "--port", str(first),
            "--https-port", str(first + 2), "--tls-dir", str(tls_dir), "--tls-name", "fakes.internal"]
    with running(argv, clean_env()) as server:
        text = server.wait_banner()
        assert f"signed by the local CA {tls_dir / 'ca.pem'}" in text
        assert "fakes.internal" in text and "video.localhost" in text
        banner = parse_banner(text)
        assert banner["video"]["url"] == f"http://127.0.0.1:{first + 1}"
        assert banner["video"]["credentials"]["https"] == f"https://127.0.0.1:{first + 3}"
        assert banner["filings"]["credentials"]["https"] == f"https://127.0.0.1:{first + 2}"
        wait_https(f"https://localhost:{first + 3}/_fake/health", tls_dir / "ca.pem", server)
        key = banner["video"]["credentials"]["api_key"]
        for base in (f"http://127.0.0.1:{first + 1}", f"https://localhost:{first + 3}"):
            created = httpx.post(f"{base}/videos", json={"title": "t"}, auth=(key, ""),
                                 verify=trusting(tls_dir / "ca.pem"), trust_env=False).json()
            assert created["assets"]["hls"].startswith(f"{base}/vod/"), created["assets"]
        filings = httpx.get(f"https://127.0.0.1:{first + 2}/_fake/health", verify=trusting(tls_dir / "ca.pem"))
        assert filings.json()["service"] == "filings"
        code, _ = server.terminate(signal.SIGINT)
        assert code == 0, server.describe()


def test_https_instead_of_http_on_the_gateway_routes_by_prefix_and_host(tmp_path: Path) -> None:
    port = free_port_block(1)
    tls_dir = tmp_path / "tls"
    argv = [fakes_command(), "serve", "--only", "filings,video", *SMALL, "--gateway", str(port)]
    with running(argv, clean_env({"FAKES_HTTPS": "1", "FAKES_TLS_DIR": str(tls_dir)})) as server:
        banner = parse_banner(server.wait_banner())
        assert banner["video"]["url"] == f"https://127.0.0.1:{port}/video"
        ca = tls_dir / "ca.pem"
        wait_https(f"https://127.0.0.1:{port}/video/_fake/health", ca, server)
        with httpx.Client(verify=trusting(ca), trust_env=False) as client:
            by_host = client.get(f"https://127.0.0.1:{port}/_fake/health", headers={"Host": f"video.localhost:{port}"},
                                 extensions={"sni_hostname": "video.localhost"})  # verified as that name
            assert by_host.json()["service"] == "video"
            key = banner["video"]["credentials"]["api_key"]
            created = client.post(f"https://127.0.0.1:{port}/video/videos", json={"title": "t"}, auth=(key, ""))
            assert created.json()["assets"]["mp4"].startswith(f"https://127.0.0.1:{port}/video/vod/")
        with pytest.raises(httpx.TransportError):
            httpx.get(f"http://127.0.0.1:{port}/video/_fake/health", trust_env=False, timeout=5)


@pytest.mark.parametrize("flags, message", [
    (["--tls-cert", "c.pem", "--tls-key", "k.pem"], "--tls-cert chooses the HTTPS certificate, but no HTTPS"),
    (["--tls-name", "x.test"], "--tls-name chooses the HTTPS certificate, but no HTTPS"),
    (["--https", "--https-port", "9443"], "use one"),
    (["--https", "--tls-cert", "c.pem"], "--tls-cert and --tls-key go together"),
    (["--https", "--tls-cert", "/nonexistent/c.pem", "--tls-key", "/nonexistent/k.pem"], "no such file"),
    (["--https", "--tls-name", "not a host"], "a TLS name is a host name or an IP address"),
    (["--https-port", "65535", "--only", "filings,video"], "--https-port 65535 puts 2 services"),
    (["--https-port", "0"], "a port is from 1 to 65535"),
])
def test_a_bad_tls_flag_is_one_line_and_exit_2(flags: list[str], message: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("FAKES_HTTPS", "FAKES_HTTPS_PORT", "FAKES_TLS_CERT", "FAKES_TLS_KEY", "FAKES_TLS_NAMES"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("FAKES_TLS_DIR", str(tmp_path))
    with pytest.raises(SystemExit) if "a port is" in message else _no_exit():
        code = main(["serve", *flags])
        assert code == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert err.count("\n") == 1, err


def test_an_unwritable_tls_directory_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    assert main(["serve", "--https", "--only", "video", "--tls-dir", str(blocked / "tls")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"fakes: error: cannot create the TLS directory {blocked / 'tls'}") and err.count("\n") == 1


class _no_exit:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return False


@pytest.mark.parametrize("trusted, scheme", [(None, "https"), ("none", "http")], ids=["loopback proxy", "nobody"])
def test_behind_a_tls_terminating_proxy_links_say_https_when_the_proxy_is_trusted(trusted: str | None,
                                                                                  scheme: str) -> None:
    port = free_port_block(1)
    flags = ["--forwarded-allow-ips", trusted] if trusted else []
    argv = [fakes_command(), "serve", "--only", "video", "--port", str(port), *flags]
    with running(argv, clean_env()) as server:
        key = parse_banner(server.wait_banner())["video"]["credentials"]["api_key"]
        server.wait_until_up([f"http://127.0.0.1:{port}/_fake/health"])
        created = httpx.post(f"http://127.0.0.1:{port}/videos", json={"title": "t"}, auth=(key, ""), trust_env=False,
                             headers={"X-Forwarded-Proto": "https", "Host": "videos.example"}).json()
    assert created["assets"]["hls"].startswith(f"{scheme}://videos.example/vod/"), created["assets"]


def test_a_bad_forwarded_allow_ips_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--forwarded-allow-ips", "proxy.example"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "takes IP addresses or networks, * or none, got 'proxy.example'" in err and err.count("\n") == 1


def test_the_images_healthcheck_probes_https_when_the_fakes_serve_it(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("tls_healthcheck", ROOT / "docker" / "healthcheck.py")
    assert spec is not None and spec.loader is not None
    healthcheck = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(healthcheck)
    fake = create_fake("video")
    with fake.serve(tls=local_certificate(tmp_path).context) as base_url:
        port = base_url.rsplit(":", 1)[1]
        for name, value in {"FAKES_ONLY": "video", "FAKES_PORT": port, "FAKES_HOST": "127.0.0.1"}.items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("FAKES_GATEWAY", raising=False)
        monkeypatch.delenv("FAKES_CONTROL_TOKEN", raising=False)
        monkeypatch.setenv("FAKES_HTTPS", "1")
        assert healthcheck.main([]) == 0
        assert capsys.readouterr().out == f"ok https://127.0.0.1:{port}/_fake/health\n"
        monkeypatch.setenv("FAKES_HTTPS", "")
        assert healthcheck.main([]) == 1  # plain HTTP to an HTTPS port: unhealthy, said so
