"""The shipped balancer configurations: what docker/fleet/fleet.py generates, accepted by HAProxy
and nginx themselves, and shaped so that a world never moves (docs/fleet.md)."""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.support.serving import clean_env

from .support import FLEET_DIR, HAPROXY_CFG, NGINX_TEMPLATE, fleet_module, require, run_script

yaml = pytest.importorskip("yaml", reason="PyYAML reads the manifests (pip install pyyaml)")


def test_the_shipped_files_are_the_generators_output() -> None:
    fleet = fleet_module()
    assert HAPROXY_CFG.read_text() == fleet.haproxy_config(3), "run `python docker/fleet/fleet.py write-shipped`"
    assert NGINX_TEMPLATE.read_text() == fleet.nginx_config(3), "run `python docker/fleet/fleet.py write-shipped`"
    manifests = list(yaml.safe_load_all((FLEET_DIR / "k8s" / "balancer.yaml").read_text()))
    configmap = next(m for m in manifests if m["kind"] == "ConfigMap")
    assert configmap["data"]["haproxy.cfg"] == HAPROXY_CFG.read_text()
    printed = run_script(["haproxy-config", "--replicas", "3"])
    assert printed.returncode == 0 and printed.stdout == HAPROXY_CFG.read_text()


def test_adding_a_replica_keeps_every_ring_point_of_the_others() -> None:
    """Consistent hashing places a server's points by its id and weight: with a fourth replica the
    first three keep theirs, so only the worlds the new one takes move."""
    fleet = fleet_module()
    servers = [re.findall(r"^    server replica-\d+ .*$", fleet.haproxy_config(n), re.M) for n in (3, 4)]
    assert servers[1][:3] == servers[0] and len(servers[1]) == 4
    assert all(" id " in line and "weight 256" in line and "check" not in line for line in servers[1])
    text = fleet.haproxy_config(3)
    assert "hash-type consistent" in text and "balance hash var(txn.fleet_key)" in text
    assert "no option redispatch" in text and "option redispatch\n" not in text.replace("no option redispatch", "")
    assert text.count("http-error status 503") == 3 and text.count("check port") == 3  # a gate per replica


def haproxy_check(config: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([require("haproxy"), "-c", "-f", str(config)], capture_output=True, text=True,
                          env={**clean_env(), **env}, timeout=30)


def test_haproxy_accepts_the_shipped_configuration_and_a_five_replica_one(tmp_path: Path) -> None:
    env = {f"FLEET_REPLICA_{i}": f"127.0.2.{i}" for i in range(1, 6)}
    checked = haproxy_check(HAPROXY_CFG, env)
    assert checked.returncode == 0, checked.stderr
    assert "Configuration file is valid" in checked.stdout + checked.stderr
    five = tmp_path / "five.cfg"
    five.write_text(fleet_module().haproxy_config(5))
    checked = haproxy_check(five, env)
    assert checked.returncode == 0, checked.stderr


def test_nginx_accepts_the_rendered_template() -> None:
    nginx = require("nginx")
    fleet = fleet_module()
    with tempfile.TemporaryDirectory(prefix="fakes-fleet-") as run_dir:
        env = fleet.fleet_environment(3, bind="127.0.0.1", prefix="127.0.2.", gateway_port=8700,
                                      first_service_port=8701, gateway=True, name="t", run_dir=run_dir, token=None)
        rendered = fleet.render_nginx(NGINX_TEMPLATE.read_text(), env)
        assert "${FLEET_" not in rendered and "$request_uri" in rendered  # nginx's own variables stay
        config = Path(run_dir) / "nginx.conf"
        config.write_text(rendered)
        checked = subprocess.run([nginx, "-t", "-e", "stderr", "-p", run_dir, "-c", str(config)],
                                 capture_output=True, text=True, timeout=30)
    assert checked.returncode == 0, checked.stderr
    with pytest.raises(KeyError):  # a variable left out is an error, not an empty string
        fleet.render_nginx(NGINX_TEMPLATE.read_text(), {})


def test_the_scripts_command_line() -> None:
    assert run_script(["--help"]).returncode == 0
    bad = run_script(["up", "--replicas", "0"])
    assert bad.returncode != 0 and "--replicas takes 1 to 250" in bad.stderr
