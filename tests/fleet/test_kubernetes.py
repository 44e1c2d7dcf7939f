"""docker/fleet/k8s: every manifest valid against the Kubernetes schemas (kubernetes-validate ships
them: no download), and the pieces agree: as many replicas as the balancer names, each with a
volume for its state directory and probes, and the balancer's configuration the shipped one."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from fakes.kernel.cli import build_parser
from tests.support.serving import clean_env

from .support import FLEET_DIR, HAPROXY_CFG

yaml = pytest.importorskip("yaml", reason="PyYAML reads the manifests (pip install pyyaml)")
kubernetes_validate = pytest.importorskip(
    "kubernetes_validate", reason="kubernetes-validate holds the Kubernetes schemas (pip install -e '.[test]')")

K8S = FLEET_DIR / "k8s"
#: the oldest Kubernetes release the manifests are checked against (and the newest bundled one)
VERSIONS = ["1.27.0", kubernetes_validate.latest_version()]


def manifests(name: str) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all((K8S / name).read_text()) if doc]


def every_manifest() -> list[tuple[str, dict[str, Any]]]:
    return [(path.name, doc) for path in sorted(K8S.glob("*.yaml")) if path.name != "kustomization.yaml"
            for doc in manifests(path.name)]


@pytest.mark.parametrize("version", VERSIONS)
def test_every_manifest_is_valid_for_kubernetes(version: str) -> None:
    found = every_manifest()
    assert {doc["kind"] for _, doc in found} == {"Service", "StatefulSet", "ConfigMap", "Deployment", "Ingress"}
    for name, doc in found:
        try:
            kubernetes_validate.validate(doc, version, strict=True)
        except kubernetes_validate.ValidationError as exc:
            pytest.fail(f"{name}: {doc['kind']} {doc['metadata']['name']}: {exc}")
    broken = {**found[1][1], "spec": {**found[1][1]["spec"], "replicas": "three"}}
    with pytest.raises(kubernetes_validate.ValidationError):  # the check does check
        kubernetes_validate.validate(broken, VERSIONS[0], strict=True)


def test_the_kustomization_lists_the_replicas_and_the_balancer() -> None:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    assert kustomization["resources"] == ["replicas.yaml", "balancer.yaml"]
    assert all((K8S / name).is_file() for name in kustomization["resources"])


def container(doc: dict[str, Any]) -> dict[str, Any]:
    containers: list[dict[str, Any]] = doc["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    return containers[0]


def test_replicas_have_a_volume_each_probes_and_a_valid_environment() -> None:
    service, stateful = manifests("replicas.yaml")
    assert service["spec"]["clusterIP"] == "None" and stateful["spec"]["serviceName"] == service["metadata"]["name"]
    main = container(stateful)
    env = {e["name"]: e.get("value") for e in main["env"]}
    with mock.patch.dict(os.environ, clean_env({k: v for k, v in env.items() if v is not None}), clear=True):
        args = build_parser().parse_args(["serve"])
    assert args.gateway == 8700 and args.state == args.save_state == "/state" and args.save_state_every > 0
    claims = stateful["spec"]["volumeClaimTemplates"]
    assert [c["metadata"]["name"] for c in claims] == ["state"]
    assert {"name": "state", "mountPath": "/state"} in main["volumeMounts"]
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert main[probe]["exec"]["command"] == ["python", "/opt/fakes/healthcheck.py"], probe
    security = stateful["spec"]["template"]["spec"]["securityContext"]
    assert security["runAsUser"] == 10001 and security["fsGroup"] == 10001  # the image's user writes /state


def test_the_balancer_names_every_replica_and_runs_the_shipped_configuration() -> None:
    _, stateful = manifests("replicas.yaml")
    configmap, deployment, service = manifests("balancer.yaml")
    assert configmap["data"]["haproxy.cfg"] == HAPROXY_CFG.read_text()
    haproxy = container(deployment)
    env = {e["name"]: e.get("value") for e in haproxy["env"]}
    named = sorted(v for k, v in env.items() if k.startswith("FLEET_REPLICA_"))
    pods = [f"{stateful['metadata']['name']}-{i}" for i in range(stateful["spec"]["replicas"])]
    assert [v.split(".")[0] for v in named] == pods
    assert all(v.split(".")[1] == stateful["spec"]["serviceName"] for v in named)
    assert f"FLEET_REPLICA_{len(pods)}" in HAPROXY_CFG.read_text()
    assert f"FLEET_REPLICA_{len(pods) + 1}" not in HAPROXY_CFG.read_text()
    assert {"name": "config", "mountPath": "/usr/local/etc/haproxy", "readOnly": True} in haproxy["volumeMounts"]
    for probe in ("readinessProbe", "livenessProbe"):
        assert haproxy[probe]["httpGet"]["path"] == "/_fleet/health"  # HAProxy's monitor-uri
    assert service["spec"]["selector"] == deployment["spec"]["selector"]["matchLabels"]


def test_manifest_files_are_where_the_docs_say() -> None:
    text = (Path(FLEET_DIR).parents[1] / "docs" / "fleet.md").read_text()
    for path in sorted(K8S.glob("*.yaml")):
        assert f"docker/fleet/k8s/{path.name}" in text, path.name
