"""The chart runs several replicas the way docs/operations.md ("Running
several replicas") describes: three by default, each registering under its
pod name with its pod IP as the address the others dial, an internal port
that no Service exposes and that a NetworkPolicy (when enabled) opens to
gateway pods only, a PodDisruptionBudget whenever more than one replica
runs, rolling updates that never dip below the replica count, and a grace
period longer than the drain."""

from __future__ import annotations

import helm_python as helm
import pytest

from conftest import CHART
from test_chart import VALUE_SETS, by_kind, objects, production_values, render, values_for


def gateway_container(objs: list[dict]) -> dict:
    (deployment,) = by_kind(objs, "Deployment")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    return container


def environment(objs: list[dict]) -> dict[str, dict]:
    """Every variable the container gets: from env (as its source) and from the ConfigMap."""
    container = gateway_container(objs)
    found: dict[str, dict] = {}
    config_maps = {c["metadata"]["name"]: c["data"] for c in by_kind(objs, "ConfigMap")}
    for source in container.get("envFrom", []):
        for name, value in config_maps[source["configMapRef"]["name"]].items():
            found[name] = {"value": value}
    for entry in container.get("env", []):
        found[entry["name"]] = entry
    return found


def matches(selector: dict, labels: dict) -> bool:
    return all(labels.get(key) == value for key, value in selector["matchLabels"].items())


def test_three_replicas_by_default_and_as_set():
    (deployment,) = by_kind(objects(), "Deployment")
    assert deployment["spec"]["replicas"] == 3
    (five,) = by_kind(objects({"replicaCount": 5}), "Deployment")
    assert five["spec"]["replicas"] == 5


def test_internal_port_is_a_named_container_port():
    ports = {p["name"]: p for p in gateway_container(objects())["ports"]}
    assert ports["internal"] == {"name": "internal", "containerPort": 7444, "protocol": "TCP"}
    moved = {p["name"]: p["containerPort"] for p in gateway_container(objects({"ports": {"internal": 8444}}))["ports"]}
    assert moved == {"tls": 7443, "ops": 9090, "internal": 8444}


@pytest.mark.parametrize("value_set", VALUE_SETS.values(), ids=VALUE_SETS.keys())
def test_each_replica_registers_under_its_pod_name_and_pod_ip(value_set):
    env = environment(objects(values_for(value_set)))
    assert env["READER_GATEWAY_NODE_NAME"]["valueFrom"] == {"fieldRef": {"fieldPath": "metadata.name"}}
    assert env["READER_GATEWAY_ADVERTISE_ADDRESS"]["valueFrom"] == {"fieldRef": {"fieldPath": "status.podIP"}}
    # Bound on every interface, so the advertise address (the pod IP) is required and set.
    assert env["READER_GATEWAY_INTERNAL_ADDRESS"] == {"value": "0.0.0.0"}
    assert env["READER_GATEWAY_INTERNAL_PORT"] == {"value": "7444"}
    assert env["READER_GATEWAY_NODE_LEASE"] == {"value": "15s" if value_set == "production" else "10s"}
    assert "READER_GATEWAY_NODE_ID" not in env


def test_ipv6_pod_networks_bind_the_internal_port_on_every_address():
    env = environment(objects({"cluster": {"internalAddress": "::"}}))
    assert env["READER_GATEWAY_INTERNAL_ADDRESS"] == {"value": "::"}


@pytest.mark.parametrize("extra", [
    {},
    {"service": {"type": "ClusterIP"}},
    {"networkPolicy": {"enabled": True}},
    {"ports": {"internal": 9443}},
], ids=["default", "cluster-ip", "network-policy", "moved-internal-port"])
def test_no_service_exposes_the_internal_port(extra):
    objs = objects(extra)
    internal = next(p["containerPort"] for p in gateway_container(objs)["ports"] if p["name"] == "internal")
    services = by_kind(objs, "Service")
    assert len(services) == 2
    for service in services:
        for port in service["spec"]["ports"]:
            assert port["targetPort"] in ("tls", "ops"), (service["metadata"]["name"], port)
            assert port["targetPort"] != internal and port["port"] != internal, (service["metadata"]["name"], port)


def test_production_services_do_not_expose_it_either():
    for service in by_kind(objects(production_values()), "Service"):
        assert [p["targetPort"] for p in service["spec"]["ports"]] in (["tls"], ["ops"])


@pytest.mark.parametrize("values, expected", [
    ({}, 1),
    ({"replicaCount": 2}, 1),
    ({"replicaCount": 1}, None),
    ({"replicaCount": 1, "autoscaling": {"enabled": True}}, 1),
    ({"podDisruptionBudget": {"enabled": False}}, None),
], ids=["default", "two", "one", "autoscaled", "disabled"])
def test_disruption_budget_whenever_more_than_one_replica_runs(values, expected):
    budgets = by_kind(objects(values), "PodDisruptionBudget")
    if expected is None:
        assert budgets == []
        return
    (budget,) = budgets
    assert budget["spec"]["maxUnavailable"] == expected
    (deployment,) = by_kind(objects(values), "Deployment")
    assert matches(budget["spec"]["selector"], deployment["spec"]["template"]["metadata"]["labels"])


def test_network_policy_is_off_by_default():
    assert by_kind(objects(), "NetworkPolicy") == []


def test_network_policy_opens_the_internal_port_to_gateway_pods_only():
    objs = objects({"networkPolicy": {"enabled": True}})
    (policy,) = by_kind(objs, "NetworkPolicy")
    (deployment,) = by_kind(objs, "Deployment")
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    spec = policy["spec"]
    assert matches(spec["podSelector"], pod_labels)
    assert spec["policyTypes"] == ["Ingress"]

    rules = {rule["ports"][0]["port"]: rule for rule in spec["ingress"]}
    assert set(rules) == {"internal", "tls", "ops"}
    for rule in spec["ingress"]:
        assert len(rule["ports"]) == 1
    # Every port the policy names is a container port of the pod.
    assert set(rules) <= {p["name"] for p in gateway_container(objs)["ports"]}

    (peer,) = rules["internal"]["from"]
    assert set(peer) == {"podSelector"}, "no namespaceSelector or ipBlock: this namespace's gateway pods only"
    assert matches(peer["podSelector"], pod_labels)
    assert peer["podSelector"]["matchLabels"]["app.kubernetes.io/instance"] == "rg"
    # Readers in stores and the kubelet still reach the public ports.
    assert "from" not in rules["tls"] and "from" not in rules["ops"]


def test_network_policy_peers_for_the_public_ports():
    monitoring = [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}]
    stores = [{"ipBlock": {"cidr": "203.0.113.0/24"}}]
    objs = objects({"networkPolicy": {"enabled": True, "opsFrom": monitoring, "tlsFrom": stores}})
    (policy,) = by_kind(objs, "NetworkPolicy")
    rules = {rule["ports"][0]["port"]: rule for rule in policy["spec"]["ingress"]}
    assert rules["ops"]["from"] == monitoring
    assert rules["tls"]["from"] == stores
    assert len(rules["internal"]["from"]) == 1


def test_rolling_update_and_spread_keep_replicas_serving():
    (deployment,) = by_kind(objects(), "Deployment")
    assert deployment["spec"]["strategy"] == {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}
    pod = deployment["spec"]["template"]["spec"]
    (preferred,) = pod["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
    assert preferred["podAffinityTerm"]["topologyKey"] == "kubernetes.io/hostname"
    assert matches(preferred["podAffinityTerm"]["labelSelector"], deployment["spec"]["template"]["metadata"]["labels"])


@pytest.mark.parametrize("value_set", VALUE_SETS.values(), ids=VALUE_SETS.keys())
def test_grace_period_outlasts_the_drain(value_set):
    values = values_for(value_set) or {}
    objs = objects(values_for(value_set))
    (deployment,) = by_kind(objs, "Deployment")
    grace = deployment["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
    (config,) = by_kind(objs, "ConfigMap")
    deadline = int(config["data"]["READER_GATEWAY_DRAIN_DEADLINE_SECONDS"])
    window = int(config["data"]["READER_GATEWAY_DRAIN_LOAD_BALANCER_SECONDS"])
    pre_stop = int(gateway_container(objs)["lifecycle"]["preStop"]["exec"]["command"][1])
    # Kubernetes counts the grace period from the start of preStop.
    assert grace > pre_stop + window + deadline, values.get("drain")


def test_colliding_ports_are_refused():
    with pytest.raises(helm.HelmError, match="three different ports"):
        render({"ports": {"internal": 7443}})
    with pytest.raises(helm.HelmError, match="three different ports"):
        render({"ports": {"internal": 9090}})


@pytest.mark.parametrize("bad_values", [
    {"cluster": {"nodeLease": "ten seconds"}},
    {"cluster": {"nodeLease": "10"}},
    {"cluster": {"internalAddress": ""}},
    {"ports": {"internal": 70000}},
    {"networkPolicy": {"enabled": "yes"}},
    {"networkPolicy": {"enabled": True, "internalFrom": []}},
], ids=["lease-words", "lease-unitless", "empty-address", "port-range", "enabled-string", "unknown-key"])
def test_values_schema_refuses_cluster_mistakes(bad_values):
    with helm.Chart.load(CHART) as chart:
        with pytest.raises(helm.HelmError):
            chart.validate_schema(chart.merge_values(bad_values))


def test_notes_name_the_replicas_and_the_internal_port():
    notes = render({"networkPolicy": {"enabled": True}})["reader-gateway/templates/NOTES.txt"]
    assert "Replicas: 3, sharing PostgreSQL only" in notes
    assert "port 7444 of their pod IP" in notes
    assert "NetworkPolicy lets only these pods reach it" in notes
    assert "NetworkPolicy" not in render()["reader-gateway/templates/NOTES.txt"]
