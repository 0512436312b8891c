"""The Helm chart renders, lints strictly and validates against the
Kubernetes schemas, with default and production-like values; and the
rendered objects keep the promises the chart makes (replicas, probes,
drain timings, no inline secrets, no database)."""

from __future__ import annotations

import subprocess

import helm_python as helm
import pytest
import yaml

from conftest import CHART, PRODUCTION_VALUES

# The oldest Kubernetes the chart supports (Chart.yaml kubeVersion) and the newest schemas at hand.
KUBERNETES_VERSIONS = ["1.27.0", "1.37.0"]
# Kinds outside the core schemas, checked by shape below instead.
CUSTOM_KINDS = {"ServiceMonitor"}


def production_values() -> dict:
    return helm.values_from_yaml(PRODUCTION_VALUES.read_text())


VALUE_SETS = {"default": None, "production": "production"}


def values_for(name: str | None) -> dict | None:
    return production_values() if name == "production" else None


def render(values: dict | None = None) -> dict[str, str]:
    with helm.Chart.load(CHART) as chart:
        return chart.render(values, name="rg", namespace="payments", is_install=True)


def objects(values: dict | None = None) -> list[dict]:
    found = []
    for path, text in render(values).items():
        if path.endswith("NOTES.txt"):
            continue
        for document in yaml.safe_load_all(text):
            if document:
                found.append(document)
    return found


def by_kind(objs: list[dict], kind: str) -> list[dict]:
    return [o for o in objs if o["kind"] == kind]


@pytest.mark.parametrize("value_set", VALUE_SETS.values(), ids=VALUE_SETS.keys())
def test_lint_strict_reports_nothing(value_set):
    report = helm.lint(CHART, values_for(value_set), strict=True, namespace="payments")
    assert report["errors"] == []
    serious = [m for m in report["messages"] if m["severity"] >= 2]
    assert serious == [], serious


@pytest.mark.parametrize("kubernetes_version", KUBERNETES_VERSIONS)
@pytest.mark.parametrize("value_set", VALUE_SETS.values(), ids=VALUE_SETS.keys())
def test_every_rendered_object_validates_strictly(tmp_path, venv_bin, value_set, kubernetes_version):
    files = []
    for index, obj in enumerate(objects(values_for(value_set))):
        if obj["kind"] in CUSTOM_KINDS:
            continue
        path = tmp_path / f"{index:02d}-{obj['kind']}.yaml"
        path.write_text(yaml.safe_dump(obj))
        files.append(str(path))
    assert len(files) >= 6
    result = subprocess.run(
        [str(venv_bin / "kubernetes-validate"), "--strict", "-k", kubernetes_version, *files],
        capture_output=True, text=True, timeout=120,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "ERROR" not in output and "WARN" not in output, output


def test_default_deployment_keeps_its_promises():
    objs = objects()
    (deployment,) = by_kind(objs, "Deployment")
    spec = deployment["spec"]
    pod = spec["template"]["spec"]
    (container,) = pod["containers"]

    assert spec["replicas"] == 3
    assert spec["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
    assert "podAntiAffinity" in pod["affinity"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert container["securityContext"]["capabilities"]["drop"] == ["ALL"]
    assert {"requests", "limits"} <= container["resources"].keys()

    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"tls": 7443, "ops": 9090, "internal": 7444}
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "ops"}
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "ops"}
    assert container["startupProbe"]["httpGet"] == {"path": "/healthz", "port": "ops"}

    # The grace period covers preStop + load balancer window + in-flight deadline + margin.
    assert container["lifecycle"]["preStop"]["exec"]["command"] == ["/bin/sleep", "5"]
    assert pod["terminationGracePeriodSeconds"] == 5 + 5 + 20 + 5

    # Secrets are referenced, never created by default.
    assert by_kind(objs, "Secret") == []
    database = next(e for e in container["env"] if e["name"] == "READER_GATEWAY_DATABASE_URL")
    assert database["valueFrom"]["secretKeyRef"] == {"name": "rg-reader-gateway-database", "key": "database-url"}
    secret_volumes = {v["name"]: v["secret"]["secretName"] for v in pod["volumes"] if "secret" in v}
    assert secret_volumes == {"tls": "rg-reader-gateway-tls", "reader-ca": "rg-reader-gateway-reader-ca"}
    data = next(v for v in pod["volumes"] if v["name"] == "data")
    assert "emptyDir" in data

    (config,) = by_kind(objs, "ConfigMap")
    assert config["data"]["READER_GATEWAY_OPS_PORT"] == "9090"
    assert config["data"]["READER_GATEWAY_PORT"] == "7443"
    assert config["data"]["READER_GATEWAY_ADDRESS"] == "0.0.0.0"
    assert config["data"]["READER_GATEWAY_DRAIN_LOAD_BALANCER_SECONDS"] == "5"
    assert config["data"]["READER_GATEWAY_DRAIN_DEADLINE_SECONDS"] == "20"

    assert by_kind(objs, "HorizontalPodAutoscaler") == []
    assert by_kind(objs, "ServiceMonitor") == []
    (pdb,) = by_kind(objs, "PodDisruptionBudget")
    assert pdb["spec"]["maxUnavailable"] == 1


def test_services_tls_and_metrics():
    services = {s["metadata"]["name"]: s["spec"] for s in by_kind(objects(), "Service")}
    assert services["rg-reader-gateway"]["type"] == "LoadBalancer"
    assert services["rg-reader-gateway"]["ports"][0]["targetPort"] == "tls"
    assert services["rg-reader-gateway-metrics"]["type"] == "ClusterIP"
    assert services["rg-reader-gateway-metrics"]["ports"][0]["targetPort"] == "ops"
    assert set(services) == {"rg-reader-gateway", "rg-reader-gateway-metrics"}

    cluster_ip = {s["metadata"]["name"]: s["spec"] for s in by_kind(objects({"service": {"type": "ClusterIP"}}), "Service")}
    assert cluster_ip["rg-reader-gateway"]["type"] == "ClusterIP"
    assert "externalTrafficPolicy" not in cluster_ip["rg-reader-gateway"]


def test_production_values_enable_autoscaling_and_service_monitor():
    objs = objects(production_values())
    (deployment,) = by_kind(objs, "Deployment")
    assert "replicas" not in deployment["spec"], "the HPA owns the replica count"
    pod = deployment["spec"]["template"]["spec"]
    assert pod["terminationGracePeriodSeconds"] == 120
    assert "requiredDuringSchedulingIgnoredDuringExecution" in pod["affinity"]["podAntiAffinity"]
    (hpa,) = by_kind(objs, "HorizontalPodAutoscaler")
    assert hpa["spec"]["minReplicas"] >= 2
    (monitor,) = by_kind(objs, "ServiceMonitor")
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    assert monitor["spec"]["endpoints"][0]["port"] == "ops"
    assert monitor["spec"]["selector"]["matchLabels"]["app.kubernetes.io/component"] == "metrics"
    (config,) = by_kind(objs, "ConfigMap")
    assert config["data"]["READER_GATEWAY_SESSION_LEASE"] == "45s"


def test_grace_period_shorter_than_the_drain_is_refused():
    with pytest.raises(helm.HelmError, match="shorter than the drain needs"):
        render({"drain": {"terminationGracePeriodSeconds": 10}})


@pytest.mark.parametrize("bad_values", [
    {"podAntiAffinity": "sometimes"},
    {"service": {"type": "ExternalName"}},
    {"replicaCount": 2, "replicaCuont": 3},
    {"config": {"extra": {"MAX CONNECTIONS": "1"}}},
    {"config": {"authFailuresPerSource": "20 per 6s"}},
    {"config": {"authFailuresPerAccount": "0/2s"}},
    {"config": {"releaseBuffersAfter": "soon"}},
    {"webhooks": {"allowPrivateAddresses": "yes"}},
    {"webhooks": {"caBundle": {"secret": "ca", "file": "ca.pem"}}},
], ids=["anti-affinity", "service-type", "typo", "extra-name", "auth-source", "auth-account-zero", "release-buffers",
        "webhook-private-flag", "webhook-ca-typo"])
def test_values_schema_refuses_mistakes(bad_values):
    with helm.Chart.load(CHART) as chart:
        with pytest.raises(helm.HelmError):
            chart.validate_schema(chart.merge_values(bad_values))


def webhook_parts(values: dict | None) -> tuple[dict, dict, list, list]:
    """The ConfigMap's data, the container, its volume mounts and the pod's volumes."""
    objs = objects(values)
    (deployment,) = by_kind(objs, "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    (config,) = by_kind(objs, "ConfigMap")
    return config["data"], container, container["volumeMounts"], pod["volumes"]


def test_default_webhook_and_guessing_settings():
    data, _, mounts, volumes = webhook_parts(None)
    assert data["READER_GATEWAY_WEBHOOK_ALLOW_PRIVATE_ADDRESSES"] == "false"
    assert "READER_GATEWAY_WEBHOOK_CA_FILE" not in data
    assert [m for m in mounts if m["name"] == "webhook-ca"] == [] and [v for v in volumes if v["name"] == "webhook-ca"] == []
    # The server's own defaults, stated where an operator sees them.
    assert data["READER_GATEWAY_AUTH_FAILURES_PER_SOURCE"] == "20/6s"
    assert data["READER_GATEWAY_AUTH_FAILURES_PER_ACCOUNT"] == "50/2s"
    assert data["READER_GATEWAY_RELEASE_BUFFERS_AFTER"] == "20ms"


@pytest.mark.parametrize("source", ["secret", "configMap"])
def test_webhook_ca_bundle_is_mounted_from_a_secret_or_a_config_map(source):
    data, _, mounts, volumes = webhook_parts({
        "webhooks": {"caBundle": {source: "receivers-ca", "key": "bundle.pem"}, "allowPrivateAddresses": True},
        "config": {"authFailuresPerSource": "200/1s", "authFailuresPerAccount": "100/500ms", "releaseBuffersAfter": "off"},
    })
    assert data["READER_GATEWAY_WEBHOOK_CA_FILE"] == "/etc/reader-gateway/webhook-ca/bundle.pem"
    assert data["READER_GATEWAY_WEBHOOK_ALLOW_PRIVATE_ADDRESSES"] == "true"
    assert (data["READER_GATEWAY_AUTH_FAILURES_PER_SOURCE"], data["READER_GATEWAY_AUTH_FAILURES_PER_ACCOUNT"],
            data["READER_GATEWAY_RELEASE_BUFFERS_AFTER"]) == ("200/1s", "100/500ms", "off")
    (mount,) = [m for m in mounts if m["name"] == "webhook-ca"]
    assert mount == {"name": "webhook-ca", "mountPath": "/etc/reader-gateway/webhook-ca", "readOnly": True}
    (volume,) = [v for v in volumes if v["name"] == "webhook-ca"]
    if source == "secret":
        assert volume["secret"] == {"secretName": "receivers-ca", "defaultMode": 0o440}
    else:
        assert volume["configMap"] == {"name": "receivers-ca", "defaultMode": 0o440}


def test_session_ticket_keys_come_from_a_secret_the_issuing_key_first():
    data, _, mounts, volumes = webhook_parts(None)
    assert "READER_GATEWAY_TLS_TICKET_KEYS" not in data
    assert data["READER_GATEWAY_TLS_TICKET_LIFETIME"] == "24h"
    assert not [m for m in mounts if m["name"] == "ticket-keys"]
    data, _, mounts, volumes = webhook_parts(
        {"tls": {"ticketKeys": {"existingSecret": "rg-tickets", "files": ["current.key", "previous.key"]}, "ticketLifetime": "12h"}}
    )
    assert data["READER_GATEWAY_TLS_TICKET_KEYS"] == "/etc/reader-gateway/tickets/current.key,/etc/reader-gateway/tickets/previous.key"
    assert data["READER_GATEWAY_TLS_TICKET_LIFETIME"] == "12h"
    (mount,) = [m for m in mounts if m["name"] == "ticket-keys"]
    assert mount == {"name": "ticket-keys", "mountPath": "/etc/reader-gateway/tickets", "readOnly": True}
    (volume,) = [v for v in volumes if v["name"] == "ticket-keys"]
    assert volume["secret"] == {"secretName": "rg-tickets", "defaultMode": 0o440}


def test_webhook_ca_bundle_from_both_a_secret_and_a_config_map_is_refused():
    with pytest.raises(helm.HelmError, match="names both a Secret"):
        render({"webhooks": {"caBundle": {"secret": "a", "configMap": "b"}}})


def test_chart_ships_no_database():
    for value_set in VALUE_SETS.values():
        objs = objects(values_for(value_set))
        assert by_kind(objs, "StatefulSet") == []
        for deployment in by_kind(objs, "Deployment"):
            for container in deployment["spec"]["template"]["spec"]["containers"]:
                assert "postgres" not in container["image"]


def test_notes_tell_how_to_reach_it():
    notes = render()["reader-gateway/templates/NOTES.txt"]
    assert "create secret tls rg-reader-gateway-tls" in notes
    assert "PostgreSQL must be version 15 or newer" in notes
    assert "/readyz" in notes
