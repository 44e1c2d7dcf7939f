"""Point LinkedIn's official Python client (``linkedin-api-client``) at a fake.

The client has no base-URL option: ``AuthClient`` and ``RestliClient`` read module constants
(``linkedin_api.common.constants``), and the member authorization URL is built from a copy of
``OAUTH_BASE_URL`` that ``linkedin_api.clients.auth.utils.oauth`` imported by name. Setting those
four names is all it takes; nothing else of the client changes::

    with fake.serve() as base_url, linkedin_client_at(base_url):
        auth = AuthClient(client_id, client_secret, redirect_url)
        url = auth.generate_member_auth_url(scopes=["r_dma_portability_self_serve"], state="s1")

The fake must run with ``version_header=LinkedIn-Version`` for ``RestliClient`` (it sends that
header). The client is an optional dependency (the ``test`` extra); it is imported on use.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

#: (module, name, path below the fake's base URL)
TARGETS = (
    ("linkedin_api.common.constants", "OAUTH_BASE_URL", "/oauth/v2"),
    ("linkedin_api.clients.auth.utils.oauth", "OAUTH_BASE_URL", "/oauth/v2"),
    ("linkedin_api.common.constants", "VERSIONED_BASE_URL", "/rest"),
    ("linkedin_api.common.constants", "NON_VERSIONED_BASE_URL", "/v2"),
)


@contextmanager
def linkedin_client_at(base_url: str) -> Iterator[None]:
    """Within the block, the official client talks to the fake at ``base_url`` (restored after)."""
    base = base_url.rstrip("/")
    saved: list[tuple[Any, str, Any]] = []
    try:
        for module_name, name, path in TARGETS:
            module = importlib.import_module(module_name)
            saved.append((module, name, getattr(module, name)))
            setattr(module, name, base + path)
        yield
    finally:
        for module, name, value in reversed(saved):
            setattr(module, name, value)
