"""deploy/: the Grafana dashboard queries only what the engine exports, and the compose file,
Prometheus config, provisioning and nats-server.conf agree with each other."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from deploy_helpers import DEPLOY, ROLES, env_example

from humangr.cli.serve import ROLES as SERVE_ROLES
from humangr.engine.metrics import Metrics, exported_names

DASHBOARD = DEPLOY / "grafana" / "dashboards" / "humangr.json"
PROMQL_WORDS = {
    "by",
    "without",
    "on",
    "ignoring",
    "group_left",
    "group_right",
    "bool",
    "and",
    "or",
    "unless",
    "offset",
    "inf",
    "nan",
}
SERVE_USER = {
    "supervisor": "supervisor",
    "layers": "layer",
    "agents": "worker",
    "monitor": "monitor",
}
"""The NATS user each ``humangr serve --role`` connects as."""


def load_yaml(path: Path) -> Any:
    """``path`` parsed by PyYAML (installed with bandit); without it the test is skipped."""
    yaml = pytest.importorskip("yaml", reason="PyYAML is not installed: YAML files unchecked")
    return yaml.safe_load(path.read_text())


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression reads: identifiers that are not functions,
    keywords, label names, label values, grouping labels or range durations."""
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', expr)
    text = re.sub(r"\{[^}]*\}", "", text)
    text = re.sub(r"\[[^\]]*\]", "", text)
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", text)
    names = set()
    for found in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", text):
        before = text[found.start() - 1] if found.start() else " "
        after = text[found.end() :].lstrip()[:1]
        if before.isdigit() or before in ".$" or after == "(":
            continue
        if found.group().lower() not in PROMQL_WORDS:
            names.add(found.group())
    return names


def test_metric_names_parses_promql() -> None:
    expr = (
        'histogram_quantile(0.95, sum by (le, layer) (rate(a_seconds_bucket{x="b c", '
        'y=~"d|e"}[$__rate_interval]))) / on (layer) group_left sum(b_total offset 5m) '
        "+ c_gauge > bool 1e3"
    )
    assert metric_names(expr) == {"a_seconds_bucket", "b_total", "c_gauge"}


def dashboard_panels() -> list[dict[str, Any]]:
    panels = []
    for panel in json.loads(DASHBOARD.read_text())["panels"]:
        panels.append(panel)
        panels.extend(panel.get("panels", []))
    return panels


def test_every_dashboard_query_reads_only_exported_metrics() -> None:
    exported = exported_names(Metrics().registry)
    used: set[str] = set()
    targets = [t for p in dashboard_panels() for t in p.get("targets", [])]
    assert len(targets) >= 20
    for target in targets:
        names = metric_names(target["expr"])
        assert names, f"no metric in {target['expr']!r}"
        unknown = names - exported
        assert not unknown, f"{target['expr']!r} reads {unknown}, which the engine does not export"
        used |= names
    wanted = {
        "humangr_decisions_total",
        "humangr_decision_latency_seconds_bucket",
        "humangr_vetoes_total",
        "humangr_layer_agreement_ratio_sum",
        "humangr_llm_calls_total",
        "humangr_llm_tokens_total",
        "humangr_repairs_total",
        "humangr_breaker_state",
        "humangr_tasks",
        "humangr_dead_letters_total",
        "humangr_inflight_actions",
        "humangr_actor_restarts_total",
        "humangr_handoffs_total",
        "humangr_envelope_rejections_total",
        "humangr_llm_latency_seconds_bucket",
        "humangr_pending_reviews",
        "humangr_review_resolutions_total",
        "humangr_review_resolution_seconds_bucket",
        "humangr_dead_letter_reasons_total",
        "humangr_messages_lost_total",
        "humangr_max_deliver_dead_letters_total",
    }
    assert wanted <= used, f"the dashboard does not show {wanted - used}"
    assert any('kind="cache_read"' in t["expr"] for t in targets), "no cache hit ratio"


def test_the_dashboard_uses_the_provisioned_datasource() -> None:
    provisioned = load_yaml(DEPLOY / "grafana" / "provisioning" / "datasources" / "prometheus.yml")
    uid = provisioned["datasources"][0]["uid"]
    assert provisioned["datasources"][0]["url"] == "http://prometheus:9090"
    for panel in dashboard_panels():
        if panel["type"] == "row":
            continue
        assert panel["datasource"]["uid"] == uid, panel["title"]
        assert all(t["datasource"]["uid"] == uid for t in panel["targets"]), panel["title"]
    ids = [p["id"] for p in dashboard_panels()]
    assert len(ids) == len(set(ids)), "panel ids must be unique"


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = load_yaml(DEPLOY / "docker-compose.yml")
    return loaded


def test_compose_runs_the_roles_as_separate_services() -> None:
    services = compose()["services"]
    assert {"nats", "supervisor", "layers", "prometheus", "grafana"} <= set(services)
    for name, service in services.items():
        command = service.get("command", [])
        if "serve" not in command:
            continue
        role = command[command.index("--role") + 1]
        assert role in SERVE_ROLES, name
        assert service["environment"]["HUMANGR_NATS_USER"] == SERVE_USER[role], name
        password = service["environment"]["HUMANGR_NATS_PASSWORD"]
        assert password.startswith(f"${{HUMANGR_{SERVE_USER[role].upper()}_PASSWORD:?"), name
        assert command[command.index("--metrics-port") + 1] == "9464", name
        assert command[command.index("--metrics-host") + 1] == "0.0.0.0", name
        assert "--jetstream" in command, name
        assert service["build"]["dockerfile"] == "deploy/Dockerfile", name
    assert (
        services["supervisor"]["command"][services["supervisor"]["command"].index("--role") + 1]
        == "supervisor"
    )
    assert services["layers"]["deploy"]["replicas"] >= 2


def test_compose_mounts_files_that_exist() -> None:
    for name, service in compose()["services"].items():
        for volume in service.get("volumes", []):
            source = volume.split(":", 1)[0]
            if source.startswith("."):
                assert (DEPLOY / source).exists(), f"{name} mounts missing {source}"
    assert (DEPLOY / "Dockerfile").is_file()


def test_every_password_variable_is_documented_and_passed_to_nats() -> None:
    assert "include ./nats-accounts.conf" in (DEPLOY / "nats-server.conf").read_text()
    text = (DEPLOY / "nats-accounts.conf").read_text()
    conf = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    referenced = set(re.findall(r"\$(HUMANGR_[A-Z_]+_PASSWORD)", conf))
    assert referenced == {f"HUMANGR_{role.upper()}_PASSWORD" for role in ROLES}
    documented = env_example()
    assert referenced <= set(documented)
    assert all(documented[name] for name in referenced), "every role needs a dev default"
    nats_env = compose()["services"]["nats"]["environment"]
    assert referenced <= set(nats_env)
    text = (DEPLOY / "docker-compose.yml").read_text()
    for name in re.findall(r"\$\{([A-Z_]+)", text):
        assert name in documented, f"{name} is used by docker-compose.yml but not in .env.example"


def test_prometheus_scrapes_every_serve_service_on_its_metrics_port() -> None:
    config = load_yaml(DEPLOY / "prometheus.yml")
    (job,) = config["scrape_configs"]
    (sd,) = job["dns_sd_configs"]
    services = compose()["services"]
    serving = {n for n, s in services.items() if "serve" in s.get("command", [])}
    assert set(sd["names"]) == serving
    assert sd["port"] == 9464


def test_grafana_loads_the_dashboard_from_the_mounted_path() -> None:
    provider = load_yaml(DEPLOY / "grafana" / "provisioning" / "dashboards" / "humangr.yml")[
        "providers"
    ][0]
    mounts = dict(v.split(":")[:2] for v in compose()["services"]["grafana"]["volumes"])
    assert mounts["./grafana/dashboards"] == provider["options"]["path"]
    assert mounts["./grafana/provisioning"] == "/etc/grafana/provisioning"


@pytest.mark.parametrize("path", sorted(p.name for p in (DEPLOY / "grafana").rglob("*.json")))
def test_dashboards_are_valid_json(path: str) -> None:
    found = next((DEPLOY / "grafana").rglob(path))
    dashboard = json.loads(Path(found).read_text())
    assert dashboard["uid"]
    assert dashboard["title"]
