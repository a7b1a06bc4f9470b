"""A real Prometheus (Debian package ``prometheus``) scrapes ``humangr serve`` and answers a
query for the decision counter; promtool checks deploy/prometheus.yml and the dashboard's
PromQL."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import urllib.error
import urllib.parse
import uuid
from pathlib import Path
from typing import Any

import anyio
import pytest
from deploy_helpers import DEPLOY, ROOT, Spec, fetch, serving

from humangr.actors.roles import submit_and_wait
from humangr.contracts import ActionContext, Outcome, Subjects
from humangr.engine.bus.nats import NatsBus
from humangr.standins.nats_server import free_port

pytestmark = [pytest.mark.anyio, pytest.mark.nats]

APT_TIMEOUT = 600


def _apt(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    return subprocess.run(
        ["apt-get", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=APT_TIMEOUT,
        check=False,
    )


@pytest.fixture(scope="session")
def prometheus_bin() -> Path:
    """The ``prometheus`` binary; installed with apt-get (Debian package ``prometheus``) when
    missing. Skips, loudly, only when it truly cannot be installed."""
    found = shutil.which("prometheus")
    if found is None:
        why = None
        if shutil.which("apt-get") is None:
            why = "apt-get is not available"
        elif os.geteuid() != 0:
            why = "installing it needs root (apt-get install -y prometheus)"
        else:
            update = _apt("update", "-qq")
            install = _apt("install", "-y", "-qq", "--no-install-recommends", "prometheus")
            if install.returncode != 0:
                why = (
                    f"apt-get install prometheus failed ({install.returncode}): "
                    f"{(update.stderr + install.stderr)[-1500:]}"
                )
        found = shutil.which("prometheus")
        if found is None:
            pytest.skip(f"PROMETHEUS IS NOT INSTALLED, THE SCRAPE TEST DID NOT RUN: {why}")
    return Path(found)


def promtool(prometheus: Path) -> Path:
    tool = prometheus.with_name("promtool")
    if not tool.is_file():
        pytest.skip(f"PROMTOOL NOT FOUND next to {prometheus}; the config checks did not run")
    return tool


def clean_action() -> ActionContext:
    return ActionContext(
        agent_id="agent-prom",
        action_type="code_diff",
        action_description="apply the refactor",
        code_diff=(ROOT / "examples" / "actions" / "01-clean-refactor.diff").read_text(),
    )


async def query(base: str, promql: str) -> list[dict[str, Any]] | None:
    """The result vector of an instant query; ``None`` while Prometheus is not up."""
    url = f"{base}/api/v1/query?{urllib.parse.urlencode({'query': promql})}"
    try:
        answer = json.loads(await fetch(url))
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None
    assert answer["status"] == "success", answer
    result: list[dict[str, Any]] = answer["data"]["result"]
    return result


async def test_prometheus_scrapes_humangr_serve_and_returns_the_decision_counter(
    prometheus_bin: Path, nats_url: str, tmp_path: Path
) -> None:
    prefix = f"prom{uuid.uuid4().hex[:8]}"
    spec = Spec(
        (
            "--role",
            "all",
            "--llm",
            "none",
            "--nats",
            nats_url,
            "--prefix",
            prefix,
            "--metrics-port",
            "0",
        )
    )
    async with serving(spec, log_dir=tmp_path) as (served,):
        bus = await NatsBus.connect(nats_url)
        try:
            report = await submit_and_wait(bus, Subjects(prefix), clean_action(), timeout=30)
        finally:
            await bus.close()
        assert report.outcome is Outcome.APPROVED
        assert served.metrics_url is not None
        target = urllib.parse.urlsplit(served.metrics_url).netloc
        config = tmp_path / "prometheus.yml"
        config.write_text(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
            "scrape_configs:\n  - job_name: humangr\n"
            f"    static_configs:\n      - targets: ['{target}']\n"
        )
        port = free_port()
        log = (tmp_path / "prometheus.log").open("wb")
        process = await anyio.open_process(
            [
                str(prometheus_bin),
                f"--config.file={config}",
                f"--storage.tsdb.path={tmp_path / 'tsdb'}",
                f"--web.listen-address=127.0.0.1:{port}",
            ],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
        )
        try:
            result: list[dict[str, Any]] | None = None
            with anyio.move_on_after(30):
                while not result or not any(s["value"][1] != "0" for s in result):
                    if process.returncode is not None:
                        break
                    result = await query(f"http://127.0.0.1:{port}", "humangr_decisions_total")
                    await anyio.sleep(0.25)
            output = (tmp_path / "prometheus.log").read_text(errors="replace")[-3000:]
            assert result, f"Prometheus returned no humangr_decisions_total; its log:\n{output}"
        finally:
            if process.returncode is None:
                process.terminate()
            with anyio.move_on_after(10, shield=True):
                await process.wait()
            if process.returncode is None:
                process.kill()
            log.close()
    by_outcome = {s["metric"]["outcome"]: s for s in result}
    assert set(by_outcome) == {"approved", "rejected", "needs_review"}, "all start at zero"
    series = by_outcome["approved"]
    assert series["metric"]["__name__"] == "humangr_decisions_total"
    assert series["metric"]["job"] == "humangr"
    assert float(series["value"][1]) == 1.0
    assert float(by_outcome["rejected"]["value"][1]) == 0.0


def test_promtool_accepts_the_deploy_config(prometheus_bin: Path) -> None:
    checked = subprocess.run(
        [str(promtool(prometheus_bin)), "check", "config", str(DEPLOY / "prometheus.yml")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_promtool_parses_every_dashboard_expression(prometheus_bin: Path, tmp_path: Path) -> None:
    dashboard = json.loads((DEPLOY / "grafana" / "dashboards" / "humangr.json").read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
    assert exprs
    rules = {
        "groups": [
            {
                "name": "dashboard",
                "rules": [
                    {
                        "record": f"humangr:dashboard_expr_{n}",
                        "expr": e.replace("$__rate_interval", "1m").replace("$__range", "1h"),
                    }
                    for n, e in enumerate(exprs)
                ],
            }
        ]
    }
    path = tmp_path / "rules.yml"
    path.write_text(json.dumps(rules))
    checked = subprocess.run(
        [str(promtool(prometheus_bin)), "check", "rules", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
