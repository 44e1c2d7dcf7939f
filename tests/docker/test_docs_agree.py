"""The docker and CI documentation says what the files do: .ci/run runs README's command, the
image's settings table names every variable `fakes serve` reads, the Dockerfile's and compose
files' comments name real ports and files, and README's Troubleshooting quotes what the CLI prints."""

from __future__ import annotations

import re
import socket

from tests.support.serving import clean_env, fakes_command, ready_services, run

from . import dockerfile
from .conftest import COMPOSE_FILES, DOCKERFILE, ROOT, cli_environment_variables

README = (ROOT / "README.md").read_text()
DOCKER_DOC = (ROOT / "docs" / "docker-and-ci.md").read_text()


def test_ci_runs_exactly_the_readmes_test_command() -> None:
    command = re.findall(r"```bash\n(.*?)```", README, re.S)[1].strip()
    steps = command.split(" && ")
    assert steps[-1].startswith("pytest"), command
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    # machine preparation (.ci/prepare-browser) and the artefacts' directory are not the project's install
    commands = [line for line in lines if line and not line.startswith(("#", "set ", "cd ", ".ci/", "export "))]
    assert commands == [*steps[:-1], "ruff check .", "mypy", steps[-1]], (
        "keep .ci/run and README's second command in step (README says CI runs exactly it)")
    assert "runs exactly the second command, with `ruff check .` and `mypy` before" in README
    assert ".ci/prepare-browser" in README


def test_the_settings_table_names_every_variable_of_fakes_serve() -> None:
    table = set(re.findall(r"^\| `(FAKES_[A-Z_]+)` \| `(--[a-z-]+)`", DOCKER_DOC, re.M))
    documented = {variable for variable, _ in table}
    missing = sorted(cli_environment_variables() - documented)
    assert not missing, f"docs/docker-and-ci.md's settings table lacks {missing}"
    image_env = dockerfile.read(DOCKERFILE).final.env()
    for variable, flag in table:
        assert variable in image_env, f"the table documents {variable}, which the image does not set"
        assert flag.replace("--", "").replace("-", "_").upper() in variable, (variable, flag)


def test_dockerfile_and_compose_comments_name_real_files_and_every_port() -> None:
    image = dockerfile.read(DOCKERFILE)
    for path in [DOCKERFILE, *COMPOSE_FILES.values()]:
        comments = "\n".join(line for line in path.read_text().splitlines()
                             if line.lstrip().startswith("#") and not line.startswith("# syntax="))
        for named in re.findall(r"(?<![\w/.-])((?:docs|docker|tests|fakes|scenarios)/[\w./-]*\w)", comments):
            assert (ROOT / named).exists(), f"{path.name} names {named}, which does not exist"
        assert not re.search(r"README\.md, \"", comments), f"{path.name} cites a README section by name"
    header = DOCKERFILE.read_text().split("\nARG ", 1)[0]
    for port in image.final.exposed_ports():
        assert str(port) in header, f"the Dockerfile's header does not mention port {port}"
    published = re.search(r"docker run .*-p 127\.0\.0\.1:(\d+)-(\d+):", header)
    assert published, "the header shows a docker run"
    served = [port for port in image.final.exposed_ports() if port != 8700]
    assert (int(published[1]), int(published[2])) == (min(served), max(served)), "publish every service's port"


def test_troubleshooting_quotes_what_fakes_serve_prints_for_a_busy_port() -> None:
    quoted = re.search(r"^\| `fakes serve` exits with `([^`]+)` \|", README, re.M)
    assert quoted, "README's Troubleshooting has a row for a busy port"
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        name = ready_services()[0]
        result = run([fakes_command(), "serve", "--only", name, "--port", str(port)], clean_env(), timeout=60)
    assert result.returncode == 2
    expected = quoted[1].replace("8701", str(port))
    assert result.stderr.startswith(expected), f"README quotes {quoted[1]!r}; the CLI prints {result.stderr!r}"
