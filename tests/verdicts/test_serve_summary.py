"""`fakes serve` prints what its clients broke when it stops, and silences rules from the flag."""

from __future__ import annotations

import signal

import httpx

from tests.support.serving import clean_env, fakes_command, free_port, running


def test_serve_prints_a_verdict_summary_on_stop() -> None:
    port = free_port()
    argv = [fakes_command(), "serve", "--only", "member-export", "--port", str(port), "--clock", "manual",
            "--silence-rule", "member-export/polling-too-fast"]
    with running(argv, clean_env()) as server:
        server.wait_banner()
        base = f"http://127.0.0.1:{port}"
        for _ in range(2):
            assert httpx.get(f"{base}/rest/memberChangeLogs", params={"q": "memberAndApplication"}).status_code == 426
        silenced = httpx.get(f"{base}/_fake/verdicts").json()["silenced"]
        assert silenced == ["member-export/polling-too-fast"]
        code, _ = server.terminate(signal.SIGINT)
        out = server.stdout
    assert code == 0, out
    summary = out.split("Ctrl-C to stop.", 1)[1]
    assert "contract-fakes: client verdicts" in summary
    assert "member-export: 1 rule broken (0 errors) - member-export/no-version-header x2" in summary
    assert "first: GET /rest/memberChangeLogs?q=memberAndApplication -> 426" in summary
