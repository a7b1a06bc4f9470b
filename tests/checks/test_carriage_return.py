"""A lone carriage return ends a line for Python although git keeps it inside one diff line:
a statement hidden after it in a comment line is read as the statement it is."""

from __future__ import annotations

import pytest
from checks_helpers import new_file

from humangr.contracts import ActionContext, Outcome
from humangr.engine.checks import run_checks
from humangr.engine.review import local_outcome

VIEW = (
    "import pickle, subprocess, sqlite3\n"
    "from flask import Flask, request\n"
    "app = Flask(__name__)\n\n"
    "@app.route('/x')\n"
    "def x():\n"
)


def outcome(source: str) -> Outcome:
    action = ActionContext(
        agent_id="a",
        action_type="code_diff",
        action_description="add a view",
        code_diff=new_file("app.py", source),
    )
    return local_outcome(run_checks(action))[0]


@pytest.mark.parametrize(
    "hidden",
    [
        "return str(eval(request.args['c']))",
        "return pickle.loads(request.data)",
        "return subprocess.run(request.args['c'], shell=True)",
        "return sqlite3.connect('d').execute(f\"SELECT 1 WHERE n = '{request.args['n']}'\")",
    ],
)
def test_a_statement_after_a_lone_carriage_return_is_reviewed(hidden: str) -> None:
    assert outcome(VIEW + f"    pass  # ok\r    {hidden}\n") is Outcome.REJECTED
    assert outcome(VIEW + f"    {hidden}\n") is Outcome.REJECTED, "the same without the trick"


def test_blocking_sleep_hidden_after_a_carriage_return_is_found() -> None:
    source = "import time\n\nasync def f():\n    pass  # ok\r    time.sleep(5)\n"
    assert outcome(source) is not Outcome.APPROVED


def test_ordinary_code_with_carriage_returns_is_still_approved() -> None:
    assert outcome("def f():\n    x = 1\r    return x\n") is Outcome.APPROVED
    assert outcome("def f():\r\n    return 2\r\n") is Outcome.APPROVED
