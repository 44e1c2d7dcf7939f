"""docker/Dockerfile, proven without Docker: parsed and checked against the CLI, its package built
as its builder stage builds it, and its exact entry command run here with its environment."""

from __future__ import annotations

import ast
import importlib.util
import re
import signal
import sys
import tomllib
from pathlib import Path
from typing import Any

from examples.notes import NotesFake
from fakes import registry
from tests.support.serving import (
    free_port,
    health,
    parse_banner,
    require_all_services,
    run,
    running,
)

from . import dockerfile
from .conftest import (
    DOCKERFILE,
    GATEWAY_PORT,
    IMAGE_VENV,
    ROOT,
    cli_environment_variables,
    entry_command,
    environment,
    image_ports,
    local_run_env,
    localize,
    parse_serve,
    served_ports,
    setting_variable,
)
from .context import context_files

PYTHON_BASE = "python:3.11-slim"
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
COMPILERS = re.compile(r"\b(gcc|g\+\+|cc|clang|build-essential|make|cmake|rustc|cargo|python3?-dev)\b")


# -- static: stages ------------------------------------------------------------------------------
def test_stages_are_python_slim_and_the_builder_installs_the_locks(image: dockerfile.Dockerfile) -> None:
    assert len(image.stages) >= 2, "a builder stage and a final stage"
    assert image.global_args.get("PYTHON_IMAGE") == PYTHON_BASE, "the base is a build argument (docs say how to pin it)"
    for stage in image.stages:
        assert stage.base == PYTHON_BASE, f"stage {stage.name or stage.index} is based on {stage.base}"
    builder = image.stages[0]
    runs = " && ".join(i.args for i in builder.all("RUN"))
    assert "pip install --require-hashes --only-binary :all: -r docker/build-requirements.lock" in runs, \
        "the build backend comes from its lock"
    assert re.search(r"\bpip wheel --no-deps --no-build-isolation --wheel-dir /wheels \.(\s|$)", runs), \
        "the builder builds the project's wheel with the locked backend"
    assert f"-m venv --without-pip {IMAGE_VENV}" in runs
    assert (f"pip --python {IMAGE_VENV}/bin/python install --require-hashes --only-binary :all: "
            "-r docker/requirements.lock") in runs, "every dependency at its locked version and hash"
    assert f"pip --python {IMAGE_VENV}/bin/python install --no-index --no-deps /wheels/contract_fakes-*.whl" in runs
    assert runs.endswith(f"pip --python {IMAGE_VENV}/bin/python check"), "the lock must satisfy the project"
    assert "[" not in runs, "no extras: the fast stack (uvloop, httptools, orjson) is a plain dependency"


def test_the_oci_labels_come_from_build_arguments(image: dockerfile.Dockerfile) -> None:
    prefix = "org.opencontainers.image."
    labels = image.final.labels(image.global_args)
    assert labels[prefix + "version"] == PROJECT["version"], "the default VERSION is the package's"
    assert labels[prefix + "base.name"] == PYTHON_BASE
    given = {"VERSION": "9.9.9", "REVISION": "0123abc", "SOURCE": "https://example.com/contract-fakes",
             "PYTHON_IMAGE": "python:3.11-slim@sha256:" + "0" * 64}
    built = image.final.labels(image.global_args, given)
    assert {key: built[prefix + key] for key in ("version", "revision", "source", "base.name")} == {
        "version": "9.9.9", "revision": "0123abc", "source": "https://example.com/contract-fakes",
        "base.name": given["PYTHON_IMAGE"]}
    assert built[prefix + "licenses"] == PROJECT["license"]


def test_final_stage_has_no_compilers_and_no_source_tree(image: dockerfile.Dockerfile) -> None:
    final = image.final
    assert final.name is None or final.name != image.stages[0].name
    for instruction in final.all("RUN"):
        assert not COMPILERS.search(instruction.args), f"line {instruction.line} installs a compiler"
        assert "pip install" not in instruction.args, "the final stage only copies the finished venv"
    copies = final.copies()
    from_builder = [(sources, dest) for flags, sources, dest in copies if flags.get("from") == image.stages[0].name]
    assert from_builder == [([IMAGE_VENV], IMAGE_VENV)], "only the venv comes from the builder"
    for flags, sources, _ in copies:
        if "from" not in flags:
            assert sources == ["docker/healthcheck.py"], f"the final stage copies {sources} from the context"


def test_final_stage_runs_as_a_non_root_user(image: dockerfile.Dockerfile) -> None:
    user = image.final.last("USER")
    assert user is not None, "no USER: the container would run as root"
    name, _, group = user.args.partition(":")
    assert name not in ("root", "0") and group not in ("root", "0")
    assert f"--uid {name}" in " ".join(i.args for i in image.final.all("RUN")), "the user is created in the image"


# -- static: entry command and environment -------------------------------------------------------
def test_entry_command_is_fakes_serve_in_exec_form_with_valid_flags(image: dockerfile.Dockerfile,
                                                                    image_env: dict[str, str]) -> None:
    command = entry_command(image)
    assert command[:2] == ["fakes", "serve"], command
    args = parse_serve(command[1:], image_env)  # fails the test on a flag the CLI does not know
    assert args.host == "0.0.0.0", "inside a container the fakes must listen on every interface"
    assert args.gateway is None, "the default is one port per service"
    assert image_env["PATH"].split(":")[0] == f"{IMAGE_VENV}/bin", "`fakes` is the venv's console script"


def test_environment_variables_are_ones_the_cli_reads(image_env: dict[str, str]) -> None:
    declared = {name for name in image_env if name.startswith("FAKES_")}
    known = cli_environment_variables()
    assert known, "found no FAKES_* variables in fakes/kernel/cli.py"
    unknown = {name for name in declared - known if setting_variable(name) is None}
    assert not unknown, f"the image sets variables that `fakes serve` does not read: {sorted(unknown)}"
    assert known <= declared, f"document every serve variable in the image's ENV: missing {sorted(known - declared)}"


def test_exposed_ports_are_exactly_the_ports_fakes_serve_uses(image: dockerfile.Dockerfile,
                                                              image_env: dict[str, str]) -> None:
    require_all_services()
    exposed = image.final.exposed_ports()
    assert len(exposed) == len(set(exposed)), f"EXPOSE lists a port twice: {exposed}"
    per_service = served_ports(entry_command(image)[1:], image_env)
    gateway = served_ports(entry_command(image)[1:], {**image_env, "FAKES_GATEWAY": str(GATEWAY_PORT)})
    expected = set(per_service) | set(gateway)
    assert set(exposed) == expected, (
        f"EXPOSE {sorted(exposed)} but `fakes serve` uses {per_service} (+ gateway {GATEWAY_PORT}); "
        "a new service needs its port in docker/Dockerfile and docker/compose.yaml")


def test_healthcheck_is_a_plain_http_probe_of_a_control_route(image: dockerfile.Dockerfile) -> None:
    found = image.final.healthcheck()
    assert found is not None, "the final stage has no HEALTHCHECK"
    options, command = found
    assert set(options) <= {"interval", "timeout", "start-period", "retries", "start-interval"}
    for name in ("interval", "timeout", "start-period"):
        assert re.fullmatch(r"\d+(ms|s|m)", options[name]), (name, options[name])
    assert command[0] == "python", "slim images have no curl: python probes"
    module = load_healthcheck(image)
    answer = NotesFake().client().get(module.HEALTH_PATH)  # a kernel control route: any fake has it
    assert answer.status_code == 200 and answer.json()["status"] == "ok", answer.text
    # it imports no module of the project (importing every fake for the ports cost 0.2 s of CPU a probe)
    tree = ast.parse(Path(module.__file__).read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module}
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, f"the healthcheck imports {sorted(imported)}"


def test_the_healthchecks_port_table_is_the_registrys() -> None:
    module = load_healthcheck(dockerfile.read(DOCKERFILE))
    registered = {name: registry.fake_class(name).default_port for name in require_all_services()}
    assert list(module.DEFAULT_PORTS.items()) == list(registered.items()), \
        "docker/healthcheck.py's DEFAULT_PORTS must list the services in `fakes list` order with their ports"


# -- the package as the builder builds it --------------------------------------------------------
def test_build_context_holds_the_package_and_nothing_else() -> None:
    files = context_files(ROOT)
    assert "pyproject.toml" in files
    assert "docker/healthcheck.py" in files
    for package in ("fakes", "scenarios"):
        assert f"{package}/__init__.py" in files
    stray = [f for f in files if not f.startswith(("fakes/", "scenarios/"))
             and f not in ("pyproject.toml", "setup.py", "README.md", "LICENSE", "docker/healthcheck.py",
                           "docker/requirements.lock", "docker/build-requirements.lock")]
    assert not stray, f"the build context also sends {stray}"
    assert not [f for f in files if "__pycache__" in f or f.startswith("tests/")]


def test_wheel_contains_every_file_of_the_packages(image_site: Path) -> None:
    # the repository's scenarios/ is installed as fakes/scenarios/ (setup.py; tests/docker/test_wheel.py)
    sources = {f if f.startswith("fakes/") else f"fakes/{f}" for f in context_files(ROOT)
               if f.startswith(("fakes/", "scenarios/"))}
    packaged = {str(p.relative_to(image_site)) for p in image_site.rglob("*") if p.is_file()}
    missing = sorted(sources - packaged)
    assert not missing, f"the wheel (hence the image) lacks {missing}: declare them as package data"
    (dist_info,) = image_site.glob("contract_fakes-*.dist-info")
    entry_points = (dist_info / "entry_points.txt").read_text()
    assert re.search(r"^fakes = fakes\.kernel\.cli:main$", entry_points, re.M), entry_points
    requires = re.findall(r"^Requires-Dist: ([\w.-]+)", (dist_info / "METADATA").read_text(), re.M)
    assert {"starlette", "uvicorn"} <= {r.lower() for r in requires}, "dependencies come from pyproject.toml"


def test_wheel_is_what_the_local_runs_import(image: dockerfile.Dockerfile, image_env: dict[str, str],
                                             image_site: Path, image_workdir: Path) -> None:
    env = local_run_env(image_env, image_site)
    result = run([localize(["python"], image, env)[0], "-c", "import fakes.kernel.cli as c; print(c.__file__)"], env,
                 cwd=image_workdir)
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()).is_relative_to(image_site), result.stdout


# -- the exact entry command, run here -----------------------------------------------------------
def listening_addresses(port: int) -> set[str] | None:
    """Local IPv4 addresses with a socket listening on ``port`` (None: no /proc/net/tcp here)."""
    try:
        table = Path("/proc/net/tcp").read_text().splitlines()[1:]
    except OSError:
        return None
    found = set()
    for row in table:
        local, state = row.split()[1], row.split()[3]
        address, _, hex_port = local.partition(":")
        if state == "0A" and int(hex_port, 16) == port:
            found.add(".".join(str(b) for b in reversed(bytes.fromhex(address))))
    return found


def test_entry_command_serves_every_port_passes_its_healthcheck_and_stops_on_sigterm(
        image: dockerfile.Dockerfile, image_env: dict[str, str], image_site: Path, image_workdir: Path) -> None:
    """The image's exact command and HEALTHCHECK, run here. On loopback and free ports by default
    (FAKES_HOST/FAKES_PORT added, as `docker run -e` would); with FAKES_TEST_FIXED_PORTS=1 on the
    image's own ports and every interface, as in the container."""
    names = require_all_services()
    command = entry_command(image)
    assert list(served_ports(command[1:], image_env).values()) == names
    _, healthcheck = image.final.healthcheck() or ({}, [])

    # the ports stay locked until the last probe: another test's server (compose) on them would pass it
    with image_ports(command[1:], image_env) as (container_env, ports):
        env = local_run_env(container_env, image_site)
        health_urls = {f"http://127.0.0.1:{port}/_fake/health": name for port, name in ports.items()}
        with running(localize(command, image, env), env, image_workdir) as server:
            server.wait_until_up(list(health_urls))
            for url, name in health_urls.items():
                assert health(url) == {"service": name, "status": "ok"}
            expected = {"0.0.0.0"} if container_env.get("FAKES_HOST") == "0.0.0.0" else {"127.0.0.1"}
            for port in ports:
                assert listening_addresses(port) in (expected, None), f"port {port} is not bound to {expected}"

            banner = parse_banner(server.wait_banner())
            assert list(banner) == names
            assert [int(b["url"].rsplit(":", 1)[1]) for b in banner.values()] == list(ports)

            result = run(localize(healthcheck, image, env), env, cwd=image_workdir)
            assert result.returncode == 0, f"HEALTHCHECK failed:\n{result.stdout}{result.stderr}"
            assert result.stdout == f"ok {next(iter(health_urls))}\n", "one probe: the first service's"

            code, seconds = server.terminate(signal.SIGTERM)
            assert code == 0, f"exit status {code} after SIGTERM:\n{server.describe()}"
            assert seconds < 5
            assert "Traceback" not in server.stderr, server.stderr

        result = run(localize(healthcheck, image, env), env, cwd=image_workdir)
        assert result.returncode == 1, "the HEALTHCHECK passes with nothing listening"
        assert "unhealthy" in result.stdout


def load_healthcheck(image: dockerfile.Dockerfile) -> Any:
    """The HEALTHCHECK script (the file the image copies) as a module."""
    _, command = image.final.healthcheck() or ({}, [])
    copied = {dest: sources[0] for flags, sources, dest in image.final.copies() if "from" not in flags}
    spec = importlib.util.spec_from_file_location("fakes_image_healthcheck", ROOT / copied[command[1]])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_healthcheck_follows_the_environment(image: dockerfile.Dockerfile, image_env: dict[str, str]) -> None:
    """FAKES_ONLY / FAKES_PORT / FAKES_GATEWAY / FAKES_HOST / FAKES_CONTROL_TOKEN (or the same flags)
    change what it probes: the first port `fakes serve` would listen on."""
    names = require_all_services()
    module = load_healthcheck(image)
    port = {name: registry.fake_class(name).default_port for name in names}
    checks = [
        ({}, [], f"127.0.0.1:{port[names[0]]}", None),
        ({"FAKES_ONLY": f"{names[-1]},{names[1]}"}, [], f"127.0.0.1:{port[names[1]]}", None),
        ({"FAKES_ONLY": names[0]}, ["--only", names[-1]], f"127.0.0.1:{port[names[-1]]}", None),
        ({"FAKES_PORT": "9000"}, [], "127.0.0.1:9000", None),
        ({"FAKES_GATEWAY": "8700", "FAKES_PORT": "9000"}, [], "127.0.0.1:8700", None),
        ({}, ["serve", "--gateway=8710", "--seed", "3"], "127.0.0.1:8710", None),
        ({"FAKES_HOST": "::", "FAKES_ONLY": names[0], "FAKES_CONTROL_TOKEN": "t"}, [], f"[::1]:{port[names[0]]}", "t"),
    ]
    for extra, flags, host, token in checks:
        with environment({**image_env, **extra}):
            assert module.health_url(flags) == (f"http://{host}/_fake/health", token), (extra, flags)
        # the first port `fakes serve` itself listens on, with the same environment and flags
        served = served_ports(["serve", *[flag for flag in flags if flag != "serve"]], {**image_env, **extra})
        assert host.endswith(f":{next(iter(served))}"), (extra, flags, served)
    with environment({**image_env, "FAKES_ONLY": "no-such-service"}):
        assert module.main([]) == 1
    with environment({**image_env, "FAKES_PORT": "eighty"}):
        assert module.main([]) == 1


def test_healthcheck_sends_the_control_token(image: dockerfile.Dockerfile, image_env: dict[str, str],
                                             image_site: Path, image_workdir: Path) -> None:
    names = require_all_services()
    port = free_port()
    _, healthcheck = image.final.healthcheck() or ({}, [])
    env = local_run_env({**image_env, "FAKES_ONLY": names[0], "FAKES_PORT": str(port), "FAKES_HOST": "127.0.0.1",
                         "FAKES_CONTROL_TOKEN": "s3cret"}, image_site)
    with running(localize(entry_command(image), image, env), env, image_workdir) as server:
        url = f"http://127.0.0.1:{port}/_fake/health"
        server.wait_until_up([url])
        result = run(localize(healthcheck, image, env), env, cwd=image_workdir)
        assert (result.returncode, result.stdout) == (0, f"ok {url}\n"), result.stdout + result.stderr
        module = load_healthcheck(image)
        assert module.probe(url, "wrong") == "HTTP 401"
        assert module.probe(url, None) == "HTTP 401"
        assert server.terminate()[0] == 0
