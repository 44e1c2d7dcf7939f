"""An in-process pytest run (pytester) drops the modules it imported when it ends; the suite's
conftest makes httpx's client and httpcore first, so a connection error after such a run is still
httpx's own (a second httpcore would escape httpx's table of its errors)."""

from __future__ import annotations

import socket

import httpx
import pytest


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_connection_error_after_an_in_process_run_is_httpxs(pytester: pytest.Pytester) -> None:
    port = _closed_port()
    pytester.makepyfile(test_inner=f'''
import httpx, pytest

def test_refused():
    with pytest.raises(httpx.ConnectError):
        httpx.get("http://127.0.0.1:{port}/", timeout=5)
''')
    pytester.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/", timeout=5, trust_env=False)
