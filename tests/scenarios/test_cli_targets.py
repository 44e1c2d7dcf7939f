"""What a scenario run against a URL means: a fake unless the user says ``--real``. A URL that
cannot be reached, or answers but is no fake, is one line naming it and exit status 2 (never a
run "against the real service" that skips everything and passes); a run in which every scenario
skipped fails unless ``--allow-skips``."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from fakes.kernel.server import ServerThread
from scenarios.runner import Scenario, run_scenario
from tests.support.serving import free_port

from .test_scenarios import SCENARIOS, scenarios_cli

NAME = "filings-free-quota"  # needs a credential against a real service: it skips there


def one_line_naming(result: object, url: str) -> None:
    stderr = result.stderr  # type: ignore[attr-defined]
    assert result.returncode == 2, (result.stdout, stderr)  # type: ignore[attr-defined]
    assert stderr.count("\n") == 1 and url in stderr and "Traceback" not in stderr, stderr
    assert "(real)" not in result.stdout and "SKIPPED" not in result.stdout, result.stdout  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def not_a_fake() -> Iterator[str]:
    """A live HTTP server that is no fake: every path answers 404 (as most real services would
    answer /_fake/health)."""
    async def nothing(request: object) -> PlainTextResponse:
        return PlainTextResponse("not found", status_code=404)

    app = Starlette(routes=[Route("/{path:path}", nothing, methods=["GET", "POST", "HEAD"])])
    with ServerThread([(app, "127.0.0.1", 0)]) as ((host, port),):
        yield f"http://{host}:{port}"


def test_nothing_listening_is_an_error_naming_the_url() -> None:
    assert NAME in SCENARIOS
    url = f"http://127.0.0.1:{free_port()}"
    for args in ([NAME], ["all"], [NAME, "--real"], ["all", "--real", "--service", "filings"]):
        result = scenarios_cli("run", *args, "--base-url", url)
        one_line_naming(result, url)
        assert "cannot reach" in result.stderr and "--service" not in result.stderr, (args, result.stderr)


def test_a_url_that_is_no_fake_says_so(not_a_fake: str) -> None:
    for name in (NAME, "all"):
        result = scenarios_cli("run", name, "--base-url", not_a_fake)
        one_line_naming(result, not_a_fake)
        assert "is no fake" in result.stderr and "--real" in result.stderr, result.stderr
        assert "--service" not in result.stderr, "run all against a URL that is no fake asks for --service"


def test_a_run_that_skipped_everything_fails_unless_allowed(not_a_fake: str) -> None:
    skipped = scenarios_cli("run", NAME, "--base-url", not_a_fake, "--real")
    assert skipped.returncode == 1, skipped.stdout + skipped.stderr
    assert "(real)" in skipped.stdout and f"SKIPPED: {NAME}" in skipped.stdout
    assert skipped.stderr.count("\n") == 1 and "nothing ran" in skipped.stderr and "--allow-skips" in skipped.stderr
    allowed = scenarios_cli("run", NAME, "--base-url", not_a_fake, "--real", "--allow-skips")
    assert allowed.returncode == 0 and allowed.stderr == "", allowed.stdout + allowed.stderr
    every = scenarios_cli("run", "all", "--base-url", not_a_fake, "--real", "--service", "filings", "--json")
    document = json.loads(every.stdout)
    assert every.returncode == 1 and document["status"] == "skipped" and document["passed"] == 0, every.stdout


def test_the_runner_never_guesses_the_real_service() -> None:
    def flow(run: object) -> None:
        raise AssertionError("the flow must not run against a target that is no fake")

    with httpx.Client(transport=httpx.MockTransport(lambda request: httpx.Response(404)),
                      base_url="http://service.example") as client:
        report = run_scenario(Scenario("guess", "notes", "", flow), client)
    assert report.status == "failed" and "is no fake" in report.message, report.render()


def test_run_all_for_a_service_without_scenarios_is_an_error(not_a_fake: str) -> None:
    result = scenarios_cli("run", "all", "--base-url", not_a_fake, "--real", "--service", "nope")
    assert result.returncode == 2 and "no scenario is for the service 'nope'" in result.stderr, result.stderr
