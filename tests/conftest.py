"""Suite-wide: no test binds a wildcard address or a default port (8700-8705) in this process or a
server thread it starts, unless FAKES_TEST_FIXED_PORTS=1 asks for it (a shared CI runner's ports
are not ours). Servers started as subprocesses are checked by tests/support/serving.py."""

from __future__ import annotations

import sys
from typing import Any

import httpcore  # noqa: F401 - see below
import httpx

from tests.support.serving import DEFAULT_PORTS, FIXED_PORTS_ENV, fixed_ports_asked

# httpx imports httpcore on its first client and keeps a table of httpcore's exception classes. An
# in-process pytester run drops the modules it imported when it ends: had the table been made in
# one, a later test's httpcore would be a second copy whose errors the table does not know, and a
# refused TLS handshake would escape as httpcore.ConnectError instead of httpx.ConnectError. Both
# are made here, before any test.
httpx.Client().close()

WILDCARDS = ("", "0.0.0.0", "::", "::0")


def _refuse_shared_binds(event: str, args: tuple[Any, ...]) -> None:
    if event != "socket.bind" or len(args) < 2:
        return
    address = args[1]
    if not (isinstance(address, tuple) and len(address) >= 2 and isinstance(address[1], int)):
        return  # a Unix socket, or an address family without ports
    host, port = address[0], address[1]
    if (host in WILDCARDS or port in DEFAULT_PORTS) and not fixed_ports_asked():
        raise PermissionError(f"a test bound {host or '*'}:{port}: tests use loopback and free ports "
                              f"({FIXED_PORTS_ENV}=1 allows fixed ports and every interface)")


sys.addaudithook(_refuse_shared_binds)
