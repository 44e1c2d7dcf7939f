"""Seeded building blocks of the generated world: hashing, word pools, websites, logos, email lists.

Faker fills word pools once per process and locale (constructing it costs ~0.3 s and each call
~100 us); a record then draws from the pools with a ``random.Random`` seeded by a hash of its
identity, so every record is a pure function of (seed, identity).
"""

from __future__ import annotations

import functools
import hashlib
import random
import re
import struct
import zlib
from dataclasses import dataclass


def mix(*parts: object) -> int:
    """A stable 64-bit hash of ``parts`` (Python's ``hash`` is salted per process)."""
    text = "|".join(str(part) for part in parts).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


def rng(*parts: object) -> random.Random:
    return random.Random(mix(*parts))


def unit(*parts: object) -> float:
    """A uniform float in [0, 1) from ``parts``."""
    return mix(*parts) / 2**64


def short_id(*parts: object, size: int = 6) -> str:
    return hashlib.blake2b("|".join(str(p) for p in parts).encode(), digest_size=size).hexdigest()


# -- websites ------------------------------------------------------------------------------------
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")


@functools.lru_cache(maxsize=65_536)
def normalize_website(raw: str) -> str | None:
    """The canonical company key: ``https://www.x.com/``, ``x.com`` and ``http://X.com/a`` -> ``x.com``.

    None when the text is not a host name with at least two labels (a 400 for the caller)."""
    text = raw.strip().lower()
    if not text or len(text) > 2048:
        return None
    for scheme in ("https://", "http://"):
        if text.startswith(scheme):
            text = text[len(scheme):]
            break
    host = re.split(r"[/?#]", text, maxsplit=1)[0]
    if "@" in host:
        return None
    host = host.rsplit(":", 1)[0] if re.fullmatch(r".+:[0-9]{1,5}", host) else host
    host = host.rstrip(".")
    if host.startswith("www.") and host.count(".") >= 2:  # www.com stays www.com
        host = host[4:]
    labels = host.split(".")
    if len(labels) < 2 or len(host) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        return None
    if labels[-1].isdigit():  # an IP address is not a company website
        return None
    return host


def website_url(domain: str) -> str:
    return f"https://www.{domain}"


# -- word pools ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Pools:
    first: tuple[str, ...]
    last: tuple[str, ...]
    company_word: tuple[str, ...]
    catch_phrase: tuple[str, ...]
    bs: tuple[str, ...]
    sentence: tuple[str, ...]
    city: tuple[str, ...]
    street: tuple[str, ...]
    postcode: tuple[str, ...]
    job: tuple[str, ...]
    word: tuple[str, ...]


@functools.lru_cache(maxsize=4)
def pools(locale: str) -> Pools:
    """Faker output sampled once; its own fixed seed keeps pools identical across processes."""
    from faker import Faker  # imported here: constructing Faker costs ~0.3 s

    faker = Faker(locale)
    faker.seed_instance(20260105)

    def many(make: object, count: int) -> tuple[str, ...]:
        produce = make  # a zero-argument Faker method
        seen: dict[str, None] = {}
        for _ in range(count * 3):
            value = str(produce())  # type: ignore[operator]
            seen.setdefault(value, None)
            if len(seen) >= count:
                break
        return tuple(seen)

    words = tuple(w for w in many(faker.word, 400) if w.isalpha() and len(w) > 3)
    return Pools(
        first=many(faker.first_name, 300), last=many(faker.last_name, 300),
        company_word=tuple(w.capitalize() for w in words[:200]),
        catch_phrase=many(faker.catch_phrase, 200), bs=many(faker.bs, 200),
        sentence=many(faker.sentence, 300), city=many(faker.city, 150),
        street=many(faker.street_address, 150), postcode=many(faker.postcode, 150),
        job=many(faker.job, 150), word=words,
    )


# -- email domains -------------------------------------------------------------------------------
FREE_EMAIL_DOMAINS = frozenset({
    "gmail.com", "googlemail.com", "yahoo.com", "yahoo.co.uk", "hotmail.com", "outlook.com", "live.com",
    "msn.com", "aol.com", "icloud.com", "me.com", "mail.com", "gmx.com", "gmx.de", "web.de", "proton.me",
    "protonmail.com", "yandex.com", "zoho.com", "fastmail.com", "qq.com", "163.com",
})
DISPOSABLE_EMAIL_DOMAINS = frozenset({
    "mailinator.com", "10minutemail.com", "guerrillamail.com", "tempmail.com", "temp-mail.org",
    "throwawaymail.com", "yopmail.com", "trashmail.com", "getnada.com", "sharklasers.com",
    "dispostable.com", "maildrop.cc", "fakeinbox.com", "mintemail.com", "mohmal.com", "emailondeck.com",
})
ROLE_MAILBOXES = frozenset({"info", "sales", "support", "admin", "contact", "hello", "office", "team",
                            "noreply", "no-reply", "billing", "jobs", "press", "marketing"})
_EMAIL = re.compile(r"[A-Za-z0-9._%+'-]{1,64}@([A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+)")


def email_domain(email: str) -> str | None:
    match = _EMAIL.fullmatch(email.strip())
    return match.group(1).lower() if match else None


# -- logos ---------------------------------------------------------------------------------------
def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


@functools.lru_cache(maxsize=1024)
def logo_png(seed: int, domain: str, size: int = 128) -> bytes:
    """A real ``size`` x ``size`` RGB PNG: two colours and a seeded monogram-like block pattern."""
    r = rng(seed, "logo", domain)
    background = bytes(r.randrange(40, 220) for _ in range(3))
    foreground = bytes(255 - c for c in background)
    cells = [[r.random() < 0.5 for _ in range(4)] for _ in range(8)]
    cell = size // 8
    rows = []
    for cy in range(8):  # 8 x 8 cells, mirrored left-right; a one-cell background margin
        pixels = b"".join((foreground if 1 <= cy <= 6 and 1 <= cx <= 6 and cells[cy][cx if cx < 4 else 7 - cx]
                           else background) * cell for cx in range(8))
        rows += [b"\x00" + pixels] * cell  # filter type 0 (none) per row
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
            + _chunk(b"IEND", b""))
