"""Start-up and cost: importing the checks loads neither bandit nor detect-secrets (they load
on the first check run), and the checks stay under 10 ms median per action on the bench's diffs."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

from humangr.cli.bench_engine import _action
from humangr.engine.checks import run_checks

_HEAVY = "sorted({m.split('.')[0] for m in sys.modules} & {'bandit', 'detect_secrets'})"


def _fresh(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", f"import sys\n{code}\nprint({_HEAVY})"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout.strip().splitlines()[-1]


def test_importing_the_checks_loads_neither_bandit_nor_detect_secrets() -> None:
    assert _fresh("import humangr.engine.checks") == "[]"


def test_the_first_check_run_loads_them() -> None:
    code = (
        "from humangr.contracts import ActionContext\n"
        "from humangr.engine.checks import run_checks\n"
        "diff = 'import requests\\nrequests.get(url, verify=False)\\n'\n"
        "run_checks(ActionContext(agent_id='a', action_type='code_diff',"
        " action_description='d', code_diff=diff, affected_files=['a.py']))"
    )
    assert _fresh(code) == "['bandit', 'detect_secrets']"


def test_median_cost_per_action_on_the_bench_diffs_is_under_10_ms() -> None:
    actions = [_action(i) for i in range(200)]
    run_checks(actions[0])
    samples = []
    for action in actions:
        started = time.process_time()
        run_checks(action)
        samples.append(time.process_time() - started)
    assert statistics.median(samples) < 0.010
