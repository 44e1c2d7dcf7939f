"""The dashboard's static files (package data under ``static/``), read once per process and shared
by every fake and world: a fake holds nothing for its dashboard until a browser asks for it."""

from __future__ import annotations

import hashlib
import html
from functools import cache
from importlib import resources

#: the files ``/_fake/ui/assets/<name>`` serves, with their media types
ASSET_TYPES = {"app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8"}
HTML = "text/html; charset=utf-8"
#: nothing from elsewhere: scripts, styles, pictures and requests go to the fake itself
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
SECURITY_HEADERS = {"content-security-policy": CSP, "x-content-type-options": "nosniff",
                    "referrer-policy": "no-referrer"}


@cache
def read(name: str) -> bytes:
    return (resources.files(__package__) / "static" / name).read_bytes()


@cache
def version() -> str:
    """A digest of the assets: the page names them with it, so they can be cached for good."""
    digest = hashlib.sha256()
    for name in sorted(ASSET_TYPES):
        digest.update(read(name))
    return digest.hexdigest()[:12]


@cache
def page() -> bytes:
    return read("index.html").replace(b"{{version}}", version().encode())


def login_page(message: str = "", *, from_login: bool = False) -> bytes:
    """The login form, as the page's answer (``.../_fake/ui``) or the form's (``.../_fake/ui/login``):
    its relative URLs differ by one level."""
    text = read("login.html").decode()
    note = f'<p class="error" role="alert">{html.escape(message)}</p>' if message else ""
    return (text.replace("{{version}}", version()).replace("{{message}}", note)
            .replace("{{ui}}", "" if from_login else "ui/").encode())


def gateway_page(dashboards: dict[str, str]) -> bytes:
    """The gateway's root for a browser: every service with a link to its dashboard (``dashboards``:
    name -> path of its page); the style sheet comes from the first of them."""
    items = "\n".join(f'<li><a href="{html.escape(url.lstrip("/"), quote=True)}">{html.escape(name)}</a> '
                      f'<code>{html.escape(url)}</code></li>' for name, url in dashboards.items())
    first = next(iter(dashboards.values()), "/_fake/ui")
    css = html.escape(f"{first.lstrip('/')}/assets/app.css?v={version()}", quote=True)
    return read("gateway.html").decode().replace("{{services}}", items).replace("{{css}}", css).encode()
