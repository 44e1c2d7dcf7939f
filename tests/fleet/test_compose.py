"""docker/compose.fleet.yaml, checked without Docker: replicas that `fakes serve` accepts, each with
a volume of its own for its state directory, and balancers whose configuration names exactly them."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any
from unittest import mock

import pytest

from fakes.kernel.cli import build_parser
from tests.support.serving import ROOT, clean_env

from .support import HAPROXY_CFG, NGINX_TEMPLATE

yaml = pytest.importorskip("yaml", reason="PyYAML reads the compose file (pip install pyyaml)")

COMPOSE = ROOT / "docker" / "compose.fleet.yaml"


def load() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return document


def replicas(document: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: svc for name, svc in document["services"].items() if svc.get("image") == "contract-fakes:local"}


def parse_serve(env: Mapping[str, str]) -> Any:
    with mock.patch.dict(os.environ, clean_env({k: str(v) for k, v in env.items()}), clear=True):
        try:
            return build_parser().parse_args(["serve"])
        except SystemExit as exc:  # pragma: no cover - the failure says which
            pytest.fail(f"the replicas' environment is not valid for `fakes serve` (exit {exc.code})")


def test_replicas_serve_the_gateway_and_keep_their_worlds_in_a_volume_each() -> None:
    document = load()
    found = replicas(document)
    assert sorted(found) == ["fakes-1", "fakes-2", "fakes-3"]
    volumes = set()
    for name, service in found.items():
        args = parse_serve(service["environment"])
        assert args.gateway == 8700 and args.host == "127.0.0.1"  # the image sets FAKES_HOST=0.0.0.0
        assert args.state == args.save_state == "/state" and args.save_state_every > 0, name
        mounts = [m for m in service["volumes"] if m.endswith(":/state")]
        assert len(mounts) == 1, name
        volumes.add(mounts[0].split(":")[0])
        assert service["read_only"] is True and service["tmpfs"] == ["/tmp"]
        assert service["restart"] == "unless-stopped" and "ports" not in service  # only through the balancer
        assert service["healthcheck"]["test"] == ["CMD", "python", "/opt/fakes/healthcheck.py"]
    assert len(volumes) == 3 and volumes == set(document["volumes"])  # one volume per replica


def test_the_balancers_name_every_replica_and_publish_on_loopback_only() -> None:
    document = load()
    names = sorted(replicas(document))
    haproxy, nginx = document["services"]["balancer"], document["services"]["nginx"]
    for balancer in (haproxy, nginx):
        env = balancer["environment"]
        assert sorted(v for k, v in env.items() if k.startswith("FLEET_REPLICA_")) == names
        assert env["FLEET_BIND"] == "0.0.0.0"
        assert all(str(p).startswith("127.0.0.1:") for p in balancer["ports"])
        assert set(balancer["depends_on"]) == set(names)
        assert all(d["condition"] == "service_healthy" for d in balancer["depends_on"].values())
    assert haproxy["volumes"] == ["./fleet/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro"]
    assert (COMPOSE.parent / "fleet" / "haproxy.cfg").resolve() == HAPROXY_CFG
    assert nginx["volumes"] == ["./fleet/nginx.conf.template:/etc/nginx/templates/nginx.conf.template:ro"]
    assert (COMPOSE.parent / "fleet" / "nginx.conf.template").resolve() == NGINX_TEMPLATE
    # every variable the configurations read is set (HAProxy's have defaults; nginx's template has none)
    read = set(re.findall(r"\$\{(FLEET_[A-Z0-9_]+)", NGINX_TEMPLATE.read_text()))
    assert read <= set(nginx["environment"]), read - set(nginx["environment"])
    assert "FLEET_REPLICA_3" in HAPROXY_CFG.read_text() and "FLEET_REPLICA_4" not in HAPROXY_CFG.read_text()
    # the control token is one anchor: the replicas' and the health checks' are the same
    tokens = {svc["environment"]["FAKES_CONTROL_TOKEN"] for svc in replicas(document).values()}
    assert tokens == {haproxy["environment"]["FAKES_CONTROL_TOKEN"]}
