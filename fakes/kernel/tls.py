"""HTTPS for the fakes: a certificate the user gives, or one made here under a local CA.

Many vendor clients (browser uploaders above all) hard-code ``https://``. A fake serves TLS with
either

* **the user's certificate** (``--tls-cert`` / ``--tls-key``): any PEM chain and key the ``ssl``
  module loads; nothing else is needed; or
* **a local certificate authority** kept in a directory the user chooses (``--tls-dir``, default
  ``$XDG_DATA_HOME/contract-fakes/tls``, else ``~/.local/share/contract-fakes/tls``), as mkcert,
  MockServer and LocalStack do: ``ca.pem`` (the certificate to trust: a browser, ``httpx``'s
  ``verify=``, ``SSL_CERT_FILE``, ``NODE_EXTRA_CA_CERTS``) and ``ca-key.pem`` (mode 0600), made
  once and reused by every later run. Each serving process signs a fresh server certificate with
  it (an EC P-256 key, about a millisecond) for localhost, 127.0.0.1, ::1 and the names it is
  given; that certificate never touches the disk but for an instant in a private temporary file
  (``ssl`` loads certificates from files only).

Generating needs the ``cryptography`` package (``pip install 'contract-fakes[tls]'``); it is
imported only when a certificate is made. Every refusal is a :class:`TLSError` of one line.
"""

from __future__ import annotations

import base64
import contextlib
import datetime
import getpass
import hashlib
import ipaddress
import os
import re
import socket
import ssl
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: names every generated server certificate holds
DEFAULT_NAMES = ("localhost", "127.0.0.1", "::1")
CA_FILE = "ca.pem"
CA_KEY_FILE = "ca-key.pem"
TLS_DIR_ENV = "FAKES_TLS_DIR"
INSTALL_HINT = "pip install 'contract-fakes[tls]'"
#: the local CA lives ten years; each server certificate 397 days (within what browsers accept)
CA_DAYS = 3650
SERVER_DAYS = 397
_HOST_NAME = re.compile(r"^(\*\.)?([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}"
                        r"[A-Za-z0-9_])?)*\.?$")


class TLSError(Exception):
    """HTTPS cannot be set up as asked; the message is one line saying why and what to do."""


class TLSUnavailable(TLSError):
    """A certificate must be generated but the ``cryptography`` package is not installed."""


def default_tls_dir() -> Path:
    """Where the local CA lives unless told otherwise: ``$FAKES_TLS_DIR``, else
    ``$XDG_DATA_HOME/contract-fakes/tls``, else ``~/.local/share/contract-fakes/tls``."""
    chosen = os.environ.get(TLS_DIR_ENV)
    if chosen:
        return Path(chosen)
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "contract-fakes" / "tls"


@dataclass(frozen=True)
class ServerCertificate:
    """What serving HTTPS needs: a server context, and for clients the CA to trust.

    ``ca_path`` is the local CA's ``ca.pem`` (None with the user's own certificate: its issuer is
    theirs to trust); ``names`` the names the certificate holds (empty when it is the user's);
    ``spki_sha256`` the base64 SHA-256 of the server certificate's public key (Chromium's
    ``--ignore-certificate-errors-spki-list`` takes it)."""

    context: ssl.SSLContext = field(repr=False)
    ca_path: Path | None
    names: tuple[str, ...]
    spki_sha256: str

    def client_context(self) -> ssl.SSLContext:
        """An ``ssl`` context for clients trusting this certificate's CA (the system's when the
        certificate is the user's own)."""
        return ssl.create_default_context(cafile=str(self.ca_path) if self.ca_path is not None else None)


def server_context(cert_path: str | Path, key_path: str | Path | None = None) -> ssl.SSLContext:
    """A server context of a PEM chain and key (TLS 1.2 or later, HTTP/1.1 by ALPN)."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.set_alpn_protocols(["http/1.1"])  # uvicorn speaks HTTP/1.1: a browser must not try h2
    for path in (cert_path, key_path):
        if path is not None and not os.path.isfile(path):
            raise TLSError(f"cannot read the TLS certificate or key {path}: no such file")
        if path is not None and not os.access(path, os.R_OK):
            raise TLSError(f"cannot read the TLS certificate or key {path}: permission denied")
    try:
        context.load_cert_chain(str(cert_path), str(key_path) if key_path is not None else None)
    except (ssl.SSLError, OSError) as exc:
        raise TLSError(f"cannot use the TLS certificate {cert_path} with the key {key_path or cert_path}: "
                       f"{getattr(exc, 'reason', None) or exc} (both PEM, the key the certificate's)") from None
    return context


def given_certificate(cert_path: str | Path, key_path: str | Path) -> ServerCertificate:
    """The user's own certificate (``--tls-cert``, ``--tls-key``)."""
    context = server_context(cert_path, key_path)
    return ServerCertificate(context, None, (), _spki_of_pem_file(Path(cert_path)))


def check_names(names: Iterable[str]) -> tuple[str, ...]:
    """The names a generated certificate will hold (the defaults first, each once); a name that is
    neither a host name nor an IP address is refused."""
    found: list[str] = []
    for name in [*DEFAULT_NAMES, *names]:
        name = name.strip()
        if not name or name in ("0.0.0.0", "::"):  # a wildcard bind address names no host
            continue
        try:
            name = str(ipaddress.ip_address(name.strip("[]")))
        except ValueError:
            if not _HOST_NAME.match(name) or len(name) > 253:
                raise TLSError(f"a TLS name is a host name or an IP address, got {name!r}") from None
            name = name.lower().rstrip(".")
        if name not in found:
            found.append(name)
    return tuple(found)


def local_certificate(directory: str | Path | None = None, names: Iterable[str] = ()) -> ServerCertificate:
    """A fresh server certificate for ``names`` (and localhost, 127.0.0.1, ::1), signed by the
    local CA of ``directory`` (made there first if it has none)."""
    chosen = check_names(names)
    crypto = _cryptography()
    folder = Path(directory) if directory is not None else default_tls_dir()
    ca_cert, ca_key = _local_ca(folder, crypto)
    key = crypto.ec.generate_private_key(crypto.ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    not_after = min(now + datetime.timedelta(days=SERVER_DAYS), ca_cert.not_valid_after_utc)
    x509 = crypto.x509
    alternatives: list[Any] = []
    for name in chosen:
        try:
            alternatives.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            alternatives.append(x509.DNSName(name))
    certificate = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(crypto.NameOID.ORGANIZATION_NAME,
                                                    "contract-fakes development certificate"),
                                 x509.NameAttribute(crypto.NameOID.COMMON_NAME, chosen[0])]))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))  # a client's clock a little behind
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                     data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                     crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([crypto.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectAlternativeName(alternatives), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, crypto.hashes.SHA256())
    )
    serialization = crypto.serialization
    pem = (key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())
           + certificate.public_bytes(serialization.Encoding.PEM))
    with _private_file(pem) as path:
        context = server_context(path)
    return ServerCertificate(context, folder / CA_FILE, chosen, _spki_sha256(key.public_key(), crypto))


# -- the local CA --------------------------------------------------------------------------------
def _local_ca(folder: Path, crypto: Any) -> tuple[Any, Any]:
    """(certificate, key) of the CA in ``folder``, made there if it has none; one process at a
    time (pytest-xdist workers may start together)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TLSError(f"cannot create the TLS directory {folder}: {exc.strerror or exc} "
                       "(choose another with --tls-dir / FAKES_TLS_DIR)") from None
    cert_path, key_path = folder / CA_FILE, folder / CA_KEY_FILE
    with _locked(folder):
        if cert_path.exists() or key_path.exists():
            return _read_ca(cert_path, key_path, crypto)
        certificate, key = _new_ca(crypto)
        serialization = crypto.serialization
        try:
            _write_atomically(key_path, key.private_bytes(serialization.Encoding.PEM,
                                                          serialization.PrivateFormat.PKCS8,
                                                          serialization.NoEncryption()), 0o600)
            _write_atomically(cert_path, certificate.public_bytes(serialization.Encoding.PEM), 0o644)
        except OSError as exc:
            raise TLSError(f"cannot write the local CA to {folder}: {exc.strerror or exc} "
                           "(choose another with --tls-dir / FAKES_TLS_DIR)") from None
        return certificate, key


def _new_ca(crypto: Any) -> tuple[Any, Any]:
    x509 = crypto.x509
    key = crypto.ec.generate_private_key(crypto.ec.SECP256R1())
    try:
        who = f"{getpass.getuser()}@{socket.gethostname()}"
    except (OSError, KeyError):  # no user name (a container's bare uid)
        who = socket.gethostname()
    name = x509.Name([x509.NameAttribute(crypto.NameOID.ORGANIZATION_NAME, "contract-fakes local CA"),
                      x509.NameAttribute(crypto.NameOID.COMMON_NAME, f"contract-fakes local CA {who}"[:64])])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=CA_DAYS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                     data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                     crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, crypto.hashes.SHA256())
    )
    return certificate, key


def _read_ca(cert_path: Path, key_path: Path, crypto: Any) -> tuple[Any, Any]:
    try:
        certificate = crypto.x509.load_pem_x509_certificate(cert_path.read_bytes())
        key = crypto.serialization.load_pem_private_key(key_path.read_bytes(), password=None)
    except FileNotFoundError as exc:
        raise TLSError(f"the local CA in {cert_path.parent} is incomplete: {Path(exc.filename).name} is missing "
                       f"(remove {CA_FILE} and {CA_KEY_FILE} there to make a new CA)") from None
    except PermissionError as exc:
        raise TLSError(f"cannot read the local CA: {exc.filename}: permission denied") from None
    except (ValueError, TypeError) as exc:
        raise TLSError(f"the local CA in {cert_path.parent} is not a PEM certificate and key ({exc}); "
                       f"remove {CA_FILE} and {CA_KEY_FILE} there to make a new one") from None
    if _spki_sha256(certificate.public_key(), crypto) != _spki_sha256(key.public_key(), crypto):
        raise TLSError(f"{cert_path} and {key_path} do not belong together (remove both to make a new CA)")
    if certificate.not_valid_after_utc <= datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=1):
        raise TLSError(f"the local CA {cert_path} has expired (remove {CA_FILE} and {CA_KEY_FILE} there to make "
                       "a new one, and trust the new one)")
    return certificate, key


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock (the CA is written atomically anyway)
        yield
        return
    try:
        handle = os.open(folder / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise TLSError(f"cannot write to the TLS directory {folder}: {exc.strerror or exc} "
                       "(choose another with --tls-dir / FAKES_TLS_DIR)") from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # releases the lock


def _write_atomically(path: Path, data: bytes, mode: int) -> None:
    """``data`` to ``path`` with ``mode`` from its first byte (a key is never readable by others)."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(handle, mode)
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


@contextlib.contextmanager
def _private_file(data: bytes) -> Iterator[str]:
    """``data`` in a temporary file only this user reads, removed on the way out."""
    handle, path = tempfile.mkstemp(prefix="fakes-tls-", suffix=".pem")  # mode 0600
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        yield path
    finally:
        os.unlink(path)


def _spki_of_pem_file(path: Path) -> str:
    """The base64 SHA-256 of the first certificate's public key in a PEM file ("" when the
    ``cryptography`` package is missing: only Chromium's SPKI list needs it)."""
    try:
        crypto = _cryptography()
    except TLSUnavailable:
        return ""
    try:
        certificate = crypto.x509.load_pem_x509_certificate(path.read_bytes())
    except (OSError, ValueError):
        return ""
    return _spki_sha256(certificate.public_key(), crypto)


def _spki_sha256(public_key: Any, crypto: Any) -> str:
    spki = public_key.public_bytes(crypto.serialization.Encoding.DER,
                                   crypto.serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.b64encode(hashlib.sha256(spki).digest()).decode()


class _Crypto:
    """The parts of ``cryptography`` used here, imported on first need."""

    def __init__(self) -> None:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

        self.x509, self.hashes, self.serialization, self.ec = x509, hashes, serialization, ec
        self.NameOID, self.ExtendedKeyUsageOID = NameOID, ExtendedKeyUsageOID


def _cryptography() -> Any:
    try:
        return _Crypto()
    except ImportError:
        raise TLSUnavailable(f"HTTPS with a generated certificate needs the cryptography package: {INSTALL_HINT} "
                             "(or give your own with --tls-cert and --tls-key)") from None
