"""HTTPS for any fake (fakes/kernel/tls.py): the local CA made once and reused, the server
certificate's names, the user's own certificate, and a refusal of one line for what cannot work."""

from __future__ import annotations

import builtins
import datetime
import ipaddress
import socket
import ssl
import stat
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from fakes import create_fake
from fakes.kernel import tls
from fakes.kernel.tls import TLSError, TLSUnavailable, check_names, given_certificate, local_certificate


def test_the_local_ca_is_made_once_with_a_private_key_only_its_owner_reads(tmp_path: Path) -> None:
    folder = tmp_path / "tls"
    first = local_certificate(folder)
    assert first.ca_path == folder / "ca.pem"
    assert stat.S_IMODE((folder / "ca-key.pem").stat().st_mode) == 0o600
    ca_bytes, key_bytes = (folder / "ca.pem").read_bytes(), (folder / "ca-key.pem").read_bytes()
    again = local_certificate(folder, ["other.test"])
    assert (folder / "ca.pem").read_bytes() == ca_bytes and (folder / "ca-key.pem").read_bytes() == key_bytes
    assert again.spki_sha256 != first.spki_sha256  # a fresh server key per serving process
    ca = x509.load_pem_x509_certificate(ca_bytes)
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    assert sorted(path.name for path in folder.iterdir() if not path.name.startswith(".")) == ["ca-key.pem", "ca.pem"]


def test_a_served_fake_speaks_https_that_its_ca_verifies_and_links_follow_the_scheme(tmp_path: Path) -> None:
    certificate = local_certificate(tmp_path, ["video.localhost"])
    assert certificate.names == ("localhost", "127.0.0.1", "::1", "video.localhost")
    fake = create_fake("video")
    key = fake.create_project()["sandbox_key"]
    with fake.serve(tls=certificate.context) as base_url:
        assert base_url.startswith("https://127.0.0.1:")
        port = base_url.rsplit(":", 1)[1]
        with httpx.Client(verify=certificate.client_context(), auth=(key, "")) as client:
            for host in ("127.0.0.1", "localhost"):
                assert client.get(f"https://{host}:{port}/_fake/health").json()["status"] == "ok"
            created = client.post(f"{base_url}/videos", json={"title": "over TLS"}).json()
            assert created["assets"]["hls"].startswith(f"https://127.0.0.1:{port}/vod/")
            assert created["assets"]["player"].startswith(f"https://127.0.0.1:{port}/vod/")
            listed = client.get(f"{base_url}/videos", params={"pageSize": 1}).json()
            assert all(link["uri"].startswith(f"https://127.0.0.1:{port}/videos?")
                       for link in listed["pagination"]["links"])
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            httpx.get(f"{base_url}/_fake/health")  # the system's authorities do not know the local CA
        with pytest.raises(httpx.TransportError):
            httpx.get(f"http://127.0.0.1:{port}/_fake/health")  # HTTPS only on this port


def test_the_certificate_holds_ipv6_loopback(tmp_path: Path) -> None:
    if not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")
    certificate = local_certificate(tmp_path)
    fake = create_fake("filings", scale="small")
    try:
        serving = fake.serve(host="::1", tls=certificate.context)
        base_url = serving.__enter__()
    except OSError as exc:
        pytest.skip(f"cannot listen on ::1 here: {exc}")
    try:
        assert base_url.startswith("https://[::1]:")
        with httpx.Client(verify=certificate.client_context()) as client:
            assert client.get(f"{base_url}/_fake/health").status_code == 200
    finally:
        serving.__exit__(None, None, None)


def test_a_certificate_of_ones_own_is_served_as_given(tmp_path: Path) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = tmp_path / "own.pem", tmp_path / "own-key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    certificate = given_certificate(cert_path, key_path)
    assert certificate.ca_path is None and certificate.names == ()
    with create_fake("filings", scale="small").serve(tls=certificate.context) as base_url:
        answer = httpx.get(f"{base_url}/_fake/health", verify=ssl.create_default_context(cafile=str(cert_path)))
        assert answer.status_code == 200


@pytest.mark.parametrize("files, message", [
    ({}, "no such file"),
    ({"cert": b"not a certificate", "key": b"not a key"}, "cannot use the TLS certificate"),
])
def test_a_certificate_that_cannot_be_used_is_one_line(tmp_path: Path, files: dict[str, bytes], message: str) -> None:
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    with pytest.raises(TLSError, match=message) as caught:
        given_certificate(tmp_path / "cert", tmp_path / "key")
    assert "\n" not in str(caught.value)


def test_a_broken_local_ca_is_refused_naming_what_to_remove(tmp_path: Path) -> None:
    local_certificate(tmp_path / "a")
    local_certificate(tmp_path / "b")
    (tmp_path / "a" / "ca-key.pem").write_bytes((tmp_path / "b" / "ca-key.pem").read_bytes())
    with pytest.raises(TLSError, match="do not belong together"):
        local_certificate(tmp_path / "a")
    (tmp_path / "b" / "ca-key.pem").unlink()
    with pytest.raises(TLSError, match=r"ca-key\.pem is missing"):
        local_certificate(tmp_path / "b")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "ca.pem").write_bytes(b"junk")
    (tmp_path / "c" / "ca-key.pem").write_bytes(b"junk")
    with pytest.raises(TLSError, match="not a PEM certificate and key"):
        local_certificate(tmp_path / "c")


@pytest.mark.parametrize("name", ["bad name", "under_score!", "-x.", "a" * 300])
def test_a_name_that_is_no_host_is_refused(name: str) -> None:
    with pytest.raises(TLSError, match="host name or an IP address"):
        check_names([name])


def test_names_are_normalised_and_wildcard_addresses_dropped() -> None:
    assert check_names(["0.0.0.0", "::", "[::1]", "Video.LocalHost.", "10.0.0.7", "fakes"]) == (
        "localhost", "127.0.0.1", "::1", "video.localhost", "10.0.0.7", "fakes")


def test_without_cryptography_a_generated_certificate_says_what_to_install(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_cryptography(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("cryptography"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_cryptography)
    with pytest.raises(TLSUnavailable, match=r"pip install 'contract-fakes\[tls\]'"):
        local_certificate(tmp_path)
    assert not (tmp_path / "ca.pem").exists()


def test_the_default_directory_is_the_users_data_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("FAKES_TLS_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert tls.default_tls_dir() == tmp_path / "contract-fakes" / "tls"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert tls.default_tls_dir() == Path.home() / ".local" / "share" / "contract-fakes" / "tls"
    monkeypatch.setenv("FAKES_TLS_DIR", str(tmp_path / "chosen"))
    assert tls.default_tls_dir() == tmp_path / "chosen"
