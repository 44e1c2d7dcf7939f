"""docker/compose*.yaml, proven without Docker: parsed and checked against `fakes serve`, then each
fake service's effective command (the image's, with the service's environment) run here, probed
through its published ports, its healthcheck and its example client, and stopped with SIGTERM."""

from __future__ import annotations

import re
import signal
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from fakes import registry
from tests.support.serving import clean_env, get, health, require_all_services, run, running

from . import dockerfile
from .conftest import (
    COMPOSE_FILES,
    GATEWAY_PORT,
    ROOT,
    cli_environment_variables,
    image_ports,
    local_run_env,
    localize,
    served_ports,
    setting_variable,
)

yaml = pytest.importorskip("yaml", reason="PyYAML reads the compose files (pip install pyyaml)")

IMAGE_TAG = "contract-fakes:local"


def load(name: str) -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(COMPOSE_FILES[name].read_text())
    return document


def environment(service: dict[str, Any]) -> dict[str, str]:
    raw = service.get("environment") or {}
    if isinstance(raw, list):
        raw = dict(item.partition("=")[::2] for item in raw)
    return {key: "" if value is None else str(value) for key, value in raw.items()}


def is_fake(service: dict[str, Any]) -> bool:
    return service.get("image") == IMAGE_TAG or "build" in service


def fake_services(name: str) -> dict[str, dict[str, Any]]:
    return {key: svc for key, svc in load(name)["services"].items() if is_fake(svc)}


def published(service: dict[str, Any]) -> list[tuple[str, int, int]]:
    """(host ip, host port, container port) of each published port (short syntax)."""
    found = []
    for item in service.get("ports", []):
        match = re.fullmatch(r"(?:(?P<ip>[\d.]+):)?(?P<host>\d+):(?P<container>\d+)(?:/tcp)?", str(item))
        assert match, f"port {item!r}: use IP:HOST:CONTAINER with single ports"
        found.append((match["ip"] or "", int(match["host"]), int(match["container"])))
    return found


def effective(image: dockerfile.Dockerfile, image_env: dict[str, str],
              service: dict[str, Any]) -> tuple[list[str], dict[str, str]]:
    """The command and environment that the service's container runs."""
    entrypoint = service.get("entrypoint", image.final.exec_form("ENTRYPOINT") or [])
    command = service.get("command", image.final.exec_form("CMD") or [])
    assert isinstance(entrypoint, list) and isinstance(command, list), "use the exec (list) form"
    return [*entrypoint, *command], {**image_env, **environment(service)}


def cases() -> list[tuple[str, str]]:
    return [(file, svc) for file in COMPOSE_FILES for svc in fake_services(file)]


# -- static --------------------------------------------------------------------------------------
@pytest.mark.parametrize("file", list(COMPOSE_FILES))
def test_fake_services_build_this_image(file: str) -> None:
    services = fake_services(file)
    assert services, f"{file} has no service running the image"
    for name, service in services.items():
        build = service["build"]
        assert (COMPOSE_FILES[file].parent / build["context"]).resolve() == ROOT, (name, build)
        assert build["dockerfile"] == "docker/Dockerfile", (name, build)
        assert service["image"] == IMAGE_TAG, name
        assert service.get("init") is True, f"{name}: init makes SIGTERM reach `fakes` during startup too"
        assert service.get("read_only") is True, f"{name}: the image runs on a read-only root file system"
        assert service.get("tmpfs") == ["/tmp"], f"{name}: uploads go to TMPDIR=/tmp, a tmpfs"


@pytest.mark.parametrize(("file", "name"), cases())
def test_variables_are_ones_the_fakes_read(file: str, name: str) -> None:
    require_all_services()
    known = cli_environment_variables()
    for variable in environment(fake_services(file)[name]):
        assert variable in known or setting_variable(variable), f"{file}:{name}: nothing reads {variable}"


@pytest.mark.parametrize(("file", "name"), cases())
def test_published_ports_are_the_served_ports_on_loopback(file: str, name: str, image: dockerfile.Dockerfile,
                                                          image_env: dict[str, str]) -> None:
    require_all_services()
    command, env = effective(image, image_env, fake_services(file)[name])
    assert command[:2] == ["fakes", "serve"]
    served = served_ports(command[1:], env)  # fails on a flag or variable the CLI rejects
    ports = published(fake_services(file)[name])
    assert {container for _, _, container in ports} == set(served), (
        f"{file}:{name} publishes {ports} but serves {served}")
    for ip, host, container in ports:
        assert ip == "127.0.0.1", f"{file}:{name} publishes {container} on {ip or 'every interface'}"
        assert host == container, "same port numbers inside and out: the printed URLs stay right"


@pytest.mark.parametrize(("file", "name"), cases())
def test_healthcheck_is_the_images(file: str, name: str, image: dockerfile.Dockerfile) -> None:
    check = fake_services(file)[name]["healthcheck"]
    _, image_command = image.final.healthcheck() or ({}, [])
    assert check["test"] == ["CMD", *image_command]
    for key in ("interval", "timeout", "start_period"):
        assert re.fullmatch(r"\d+(ms|s|m)", check[key]), (key, check[key])
    assert int(check["retries"]) >= 1


@pytest.mark.parametrize("file", list(COMPOSE_FILES))
def test_clients_wait_for_healthy_fakes_and_use_served_urls(file: str, image: dockerfile.Dockerfile,
                                                            image_env: dict[str, str]) -> None:
    require_all_services()
    services = load(file)["services"]
    fakes = fake_services(file)
    clients = {key: svc for key, svc in services.items() if key not in fakes}
    assert clients, f"{file} has no example client"
    for client_name, client in clients.items():
        depends = client["depends_on"]
        assert depends and all(d["condition"] == "service_healthy" for d in depends.values()), client_name
        urls = [v for v in environment(client).values() if v.startswith("http")]
        assert urls, f"{client_name} has no base URL in its environment"
        for url in urls:
            parts = urlsplit(url)
            assert parts.hostname in depends, f"{client_name} calls {url} but does not wait for it"
            command, env = effective(image, image_env, fakes[parts.hostname])
            assert parts.port in served_ports(command[1:], env), f"{url}: no fake listens there"


def test_the_single_example_serves_one_fake(image: dockerfile.Dockerfile, image_env: dict[str, str]) -> None:
    require_all_services()
    (service,) = fake_services("compose.single.yaml").values()
    command, env = effective(image, image_env, service)
    assert len(served_ports(command[1:], env)) == 1


def test_the_gateway_profile_serves_every_fake_on_the_gateway_port(image: dockerfile.Dockerfile,
                                                                  image_env: dict[str, str]) -> None:
    gateway = fake_services("compose.yaml")["gateway"]
    assert gateway["profiles"] == ["gateway"], "started only on request"
    command, env = effective(image, image_env, gateway)
    assert served_ports(command[1:], env) == {GATEWAY_PORT: "gateway"}
    aliases = gateway["networks"]["default"]["aliases"]
    assert sorted(aliases) == sorted(registry.service_names()), "one Host alias per service"


# -- run each fake service's command here --------------------------------------------------------
@pytest.mark.parametrize(("file", "name"), cases())
def test_service_command_serves_passes_healthcheck_and_client(
        file: str, name: str, image: dockerfile.Dockerfile, image_env: dict[str, str], image_site: Path,
        image_workdir: Path) -> None:
    require_all_services()
    services = load(file)["services"]
    service = services[name]
    command, container_env = effective(image, image_env, service)
    check = service["healthcheck"]["test"][1:]  # after "CMD"
    clients = {key: svc for key, svc in services.items() if name in (svc.get("depends_on") or {})}
    aliases = (service.get("networks") or {}).get("default", {}).get("aliases", [])
    # the container's ports, and where they are served here (the same unless moved to free ports)
    container_ports = list(served_ports(command[1:], container_env))

    with image_ports(command[1:], container_env) as (moved_env, served):
        env = local_run_env(moved_env, image_site)
        here = dict(zip(container_ports, served, strict=True))
        with running(localize(command, image, env), env, image_workdir) as server:
            urls = {f"http://127.0.0.1:{port}/_fake/health": served_name for port, served_name in served.items()}
            server.wait_until_up(list(urls))
            for url, served_name in urls.items():
                assert health(url)["service"] == served_name
            for alias in aliases:  # Host-header routing, as the compose network aliases deliver it
                (port,) = served
                response = get(f"http://127.0.0.1:{port}/_fake/health", headers={"Host": f"{alias}:{port}"})
                assert response.json()["service"] == alias

            result = run(localize(check, image, env), env, cwd=image_workdir)
            assert result.returncode == 0, f"healthcheck of {file}:{name} failed:\n{result.stdout}{result.stderr}"

            for client_name, client in clients.items():
                client_env = clean_env({key: _served_here(value, name, here)
                                        for key, value in environment(client).items()})
                argv = [sys.executable if client["command"][0] == "python" else client["command"][0],
                        *client["command"][1:]]
                outcome = run(argv, client_env, cwd=image_workdir)
                assert outcome.returncode == 0, f"client {client_name}:\n{outcome.stdout}{outcome.stderr}"
                assert outcome.stdout.strip(), f"client {client_name} printed nothing"

            code, seconds = server.terminate(signal.SIGTERM)
            assert code == 0 and seconds < 5, server.describe()


def _served_here(value: str, host: str, ports: dict[int, int]) -> str:
    """A client's ``http://<service>:<container port>`` as it reaches the command run here."""
    for container, here in ports.items():
        value = value.replace(f"//{host}:{container}", f"//127.0.0.1:{here}")
    return value
