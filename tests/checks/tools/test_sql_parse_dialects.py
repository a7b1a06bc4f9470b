"""The dialect names the SQL reader knows without importing sqlglot are sqlglot's own."""

from __future__ import annotations

import subprocess
import sys

from sqlglot.dialects import DIALECTS

from humangr.engine.checks.tools.sql_parse import SQLGLOT_DIALECTS, dialect_of


def test_the_written_list_is_sqlglots() -> None:
    assert {name.lower() for name in DIALECTS} == SQLGLOT_DIALECTS


def test_names_map_to_dialects() -> None:
    assert dialect_of("PostgreSQL") == "postgres"
    assert dialect_of("duckdb") == "duckdb"
    assert dialect_of("bash") is None


def test_reviewing_a_shell_call_imports_neither_sqlglot_nor_bashlex() -> None:
    """The local checks of an everyday shell call load no SQL parser and no bash grammar:
    each would cost every hook process a tenth of a second or more."""
    code = (
        "import sys\n"
        "from humangr.contracts import ActionContext, ToolCall\n"
        "from humangr.engine.checks import run_checks\n"
        "run_checks(ActionContext(agent_id='a', action_type='tool_call', "
        "action_description='', tool_call=ToolCall(name='Bash', "
        "arguments={'command': 'ls -la'})))\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('sqlglot', 'bashlex')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "[]"
