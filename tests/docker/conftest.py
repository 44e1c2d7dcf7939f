"""Fixtures of the docker tests: the parsed Dockerfile, the image's package, its environment.

Docker cannot run here, so the image is proven piecewise: the Dockerfile is parsed, the package is
built the way its builder stage builds it (a wheel from the filtered build context), and the
entry command runs locally with the image's environment and that wheel's code.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from fakes import registry
from fakes.kernel.cli import build_parser, select_services
from tests.support.serving import (
    ROOT,
    VENV_BIN,
    clean_env,
    fixed_ports,
    fixed_ports_asked,
    free_port,
    free_port_block,
    run,
)

from . import dockerfile
from .context import context_files, copy_context

DOCKERFILE = ROOT / "docker" / "Dockerfile"
COMPOSE_FILES = {"compose.yaml": ROOT / "docker" / "compose.yaml",
                 "compose.single.yaml": ROOT / "docker" / "compose.single.yaml"}
CLI_SOURCE = ROOT / "fakes" / "kernel" / "cli.py"
#: where the image keeps its virtualenv (first PATH entry's parent); checked by the tests
IMAGE_VENV = "/opt/venv"
#: the documented gateway port (EXPOSEd, compose.yaml's gateway profile, README "Docker and CI pipelines")
GATEWAY_PORT = 8700


def entry_command(image: dockerfile.Dockerfile) -> list[str]:
    """ENTRYPOINT + CMD of the final stage (both in exec form)."""
    return (image.final.exec_form("ENTRYPOINT") or []) + (image.final.exec_form("CMD") or [])


@pytest.fixture(scope="session")
def image() -> dockerfile.Dockerfile:
    return dockerfile.read(DOCKERFILE)


@pytest.fixture(scope="session")
def image_env(image: dockerfile.Dockerfile) -> dict[str, str]:
    """The final stage's environment as the container sees it."""
    return image.final.env()


@pytest.fixture(scope="session")
def image_site() -> Path:
    """The project's code as the image gets it: the builder's wheel, built from the build context
    that /.dockerignore lets through, unpacked (put first on PYTHONPATH to run it).

    Built once per content of the build context (keyed by its hash, shared by xdist workers and
    later runs under a lock), since a wheel build takes seconds."""
    files = context_files(ROOT)
    digest = hashlib.sha256()
    for rel in files:
        digest.update(rel.encode() + b"\0" + (ROOT / rel).read_bytes() + b"\0")
    cache = Path(tempfile.gettempdir()) / f"contract-fakes-image-{digest.hexdigest()[:16]}"
    site = cache / "site"
    with open(Path(tempfile.gettempdir()) / "contract-fakes-image.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not site.is_dir():
            _build_site(cache)
            _forget_old_builds(cache)
        os.utime(cache)  # in use
    return site


def _forget_old_builds(keep: Path, max_age_s: float = 86_400) -> None:
    """Remove builds of other contents that nobody used for a day."""
    for old in keep.parent.glob("contract-fakes-image-*"):
        if old != keep and old.is_dir() and time.time() - old.stat().st_mtime > max_age_s:
            shutil.rmtree(old, ignore_errors=True)


def _build_site(cache: Path) -> None:
    if cache.exists():
        shutil.rmtree(cache)  # a half-built one
    context, wheels = cache / "context", cache / "wheels"
    copy_context(ROOT, context)
    # the build backend is the test extra's setuptools, as the builder stage uses its locked one:
    # no build isolation, so nothing is downloaded at test time
    result = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--wheel-dir",
                  str(wheels), str(context)],
                 clean_env({"PIP_DISABLE_PIP_VERSION_CHECK": "1"}), timeout=180, cwd=cache)
    if result.returncode != 0:
        output = result.stdout + result.stderr
        shutil.rmtree(cache, ignore_errors=True)
        if re.search(r"No module named '?setuptools|Cannot import 'setuptools", output):
            pytest.skip(f"the build backend setuptools is not installed (pip install -e '.[test]'):\n{output[-2000:]}")
        pytest.fail(f"building the image's wheel failed:\n{output[-4000:]}")
    (wheel,) = wheels.glob("contract_fakes-*.whl")
    unpacking = cache / "site.partial"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(unpacking)
    shutil.rmtree(context)
    unpacking.rename(cache / "site")


@pytest.fixture(scope="session")
def image_workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The working directory for image commands (the image's WORKDIR holds no code either: the
    checkout must not shadow the wheel through ``sys.path[0]``)."""
    return tmp_path_factory.mktemp("workdir")


def local_path(image_path: str) -> str:
    """An image PATH with the image's venv replaced by the venv running the tests."""
    return os.pathsep.join(str(VENV_BIN) if entry == f"{IMAGE_VENV}/bin" else entry
                           for entry in image_path.split(":"))


def local_run_env(container_env: Mapping[str, str], site: Path | None) -> dict[str, str]:
    """The environment for running an image command here: the container's environment, its venv
    mapped to ours and (with ``site``) the wheel's code ahead of the editable checkout."""
    env = clean_env({key: value for key, value in container_env.items() if key != "PATH"})
    env["PATH"] = local_path(container_env["PATH"])
    if site is not None:
        env["PYTHONPATH"] = str(site)
    return env


def localize(argv: Sequence[str], image: dockerfile.Dockerfile, env: Mapping[str, str]) -> list[str]:
    """An image command made runnable here: argv[0] looked up on the (mapped) PATH like Docker does,
    and files COPYed into the image from the build context replaced by their source."""
    copied = {dest: sources[0] for flags, sources, dest in image.final.copies()
              if "from" not in flags and len(sources) == 1}
    program = shutil.which(argv[0], path=env["PATH"])
    assert program is not None, f"{argv[0]!r} is not on the image's PATH"
    return [program, *(str(ROOT / copied[arg]) if arg in copied else arg for arg in argv[1:])]


@contextlib.contextmanager
def environment(env: Mapping[str, str]) -> Any:
    """Run in-process CLI code (its flag defaults come from FAKES_* variables) under ``env``."""
    with mock.patch.dict(os.environ, clean_env(dict(env)), clear=True):
        yield


def parse_serve(argv: Sequence[str], env: Mapping[str, str]) -> Any:
    """`fakes <argv>` parsed like the CLI would under ``env``; fails the test on a bad flag."""
    with environment(env):
        try:
            return build_parser().parse_args(list(argv))
        except SystemExit as exc:
            pytest.fail(f"`fakes {' '.join(argv)}` is not a valid command line (exit {exc.code})")


def served_ports(argv: Sequence[str], env: Mapping[str, str]) -> dict[int, str]:
    """{port: service, or "gateway"} that `fakes <argv>` listens on under ``env`` (as cmd_serve)."""
    args = parse_serve(argv, env)
    assert args.command == "serve", argv
    if args.gateway is not None:
        return {args.gateway: "gateway"}
    with environment(env):
        names = select_services(args.only)
    return {(args.port + offset if args.port is not None else registry.fake_class(name).default_port): name
            for offset, name in enumerate(names)}


@contextlib.contextmanager
def image_ports(argv: Sequence[str], env: Mapping[str, str]) -> Iterator[tuple[dict[str, str], dict[int, str]]]:
    """The environment to run an image command under here, and {port: service} it then serves.

    By default the command is moved to loopback and free ports (FAKES_HOST, FAKES_PORT or
    FAKES_GATEWAY added to ``env``; the command itself passes no such flag), so the suite never
    takes a shared runner's 8700-8705 or every interface. With FAKES_TEST_FIXED_PORTS=1 it runs
    exactly as the image does, on the image's ports (serialised across xdist workers)."""
    served = served_ports(argv, env)
    if fixed_ports_asked():
        with fixed_ports(list(served)):
            yield dict(env), served
        return
    moved = {**env, "FAKES_HOST": "127.0.0.1"}
    if list(served.values()) == ["gateway"]:
        moved["FAKES_GATEWAY"] = str(free_port())
    else:
        moved["FAKES_PORT"] = str(free_port_block(len(served)))
    relocated = served_ports(argv, moved)
    assert list(relocated.values()) == list(served.values()), (served, relocated)
    yield moved, relocated


def cli_environment_variables() -> set[str]:
    """The FAKES_* variables that `fakes serve` reads for its flags (from the CLI's source)."""
    return set(re.findall(r"_(?:int_|list_)?env\(\"(FAKES_[A-Z_]+)\"", CLI_SOURCE.read_text()))


def setting_variable(name: str) -> tuple[str, str] | None:
    """``FAKES_FILINGS_SCALE`` -> ("filings", "scale") if it names a registered service's setting."""
    for service in registry.service_names():
        prefix = "FAKES_" + service.upper().replace("-", "_") + "_"
        if name.startswith(prefix):
            cls = registry.fake_class(service)
            fields = {f.name.upper(): f.name for f in cls.settings_class.fields()}
            key = name[len(prefix):]
            return (service, fields[key]) if key in fields else None
    return None
