"""The taint engine: sources, propagation, sanitizers, constant folding, and severity by flow.

Each behaviour is shown on a flagged and a safe variant of the same code.
"""

from __future__ import annotations

import pytest
from checks_helpers import modify, new_file, rule, run

from humangr.contracts import LayerID, Severity

HL4 = LayerID.HL4
S = Severity


def shell(source: str, path: str = "app/views.py") -> list[tuple[int | None, Severity]]:
    return [(f.line, f.severity) for f in rule(new_file(path, source), HL4, "shell-injection")]


FLASK = """
import os
import subprocess
from flask import Flask, request
app = Flask(__name__)
"""


# --- severity follows the flow ----------------------------------------------------------------


def test_request_input_is_critical_unknown_is_high_constant_is_low() -> None:
    found = shell(
        FLASK
        + """
def handler(cmd):
    os.system(request.args["c"])
    os.system(cmd)
    os.system("uptime")
"""
    )
    assert found == [(7, S.CRITICAL), (8, S.HIGH), (9, S.LOW)]


def test_findings_name_the_source_and_the_sink() -> None:
    (f,) = rule(
        new_file("app/a.py", "from flask import request\nx = request.form['q']\neval(x)\n"),
        HL4,
        "eval-exec",
    )
    assert "request.form (line 2)" in f.description
    assert "reaches eval" in f.description
    assert f.title == "eval/exec of request input (code injection)"


# --- propagation ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        'x = request.args.get("h")\n    cmd = "ping " + x\n    os.system(cmd)',
        'x = request.args.get("h")\n    os.system(f"ping {x}")',
        'x = request.args.get("h")\n    os.system("ping %s" % x)',
        'x = request.args.get("h")\n    os.system("ping {}".format(x))',
        'd = {"h": request.args.get("h")}\n    os.system("ping " + d["h"])',
        'parts = ["ping", request.args["h"]]\n    os.system(" ".join(parts))',
        'x = request.args["h"].strip().lower()\n    os.system("ping " + x)',
        'x = ""\n    x += request.args["h"]\n    os.system("ping " + x)',
    ],
)
def test_request_input_is_followed_through_assignments_and_formatting(body: str) -> None:
    found = shell(FLASK + f"\n@app.route('/p')\ndef p():\n    {body}\n")
    assert [sev for _, sev in found] == [S.CRITICAL]


def test_helper_function_in_the_same_file_gets_the_callers_input() -> None:
    source = FLASK + (
        "\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n\n"
        "@app.route('/r')\ndef r():\n    return run('ls ' + request.args['d'])\n"
    )
    assert shell(source) == [(7, S.CRITICAL)]
    only_constants = FLASK + (
        "\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n\n"
        "def r():\n    return run('ls /tmp')\n"
    )
    assert shell(only_constants) == [(7, S.LOW)]


def test_helper_defined_in_another_file_of_the_diff() -> None:
    diff = new_file("app/util.py", "import os\n\ndef _run(cmd):\n    os.system(cmd)\n") + new_file(
        "app/views.py",
        "from flask import request\nfrom app.util import _run\n\ndef v():\n"
        "    _run('echo ' + request.args['m'])\n",
    )
    found = rule(diff, HL4, "shell-injection")
    assert [(f.file, f.line, f.severity) for f in found] == [("app/util.py", 4, S.CRITICAL)]


def test_return_values_of_local_functions() -> None:
    tainted = (
        FLASK + "\ndef name():\n    return request.args['n']\n\ndef v():\n    os.system(name())\n"
    )
    assert shell(tainted) == [(10, S.CRITICAL)]
    constant = FLASK + "\ndef name():\n    return 'fixed'\n\ndef v():\n    os.system(name())\n"
    assert shell(constant) == [(10, S.LOW)]


def test_route_and_view_parameters_are_request_input() -> None:
    flask = FLASK + "\n@app.route('/f/<name>')\ndef f(name):\n    return open(name).read()\n"
    assert [f.line for f in rule(new_file("app/f.py", flask), HL4, "path-traversal")] == [8]
    typed = FLASK + "\n@app.route('/f/<int:n>')\ndef f(n):\n    return open(f'/d/{n}').read()\n"
    assert rule(new_file("app/f.py", typed), HL4, "path-traversal") == []
    fastapi = (
        "from fastapi import FastAPI\nimport os\napp = FastAPI()\n\n"
        "@app.get('/p/{host}')\ndef p(host: str, count: int = 1):\n"
        "    os.system(f'ping -c {count} {host}')\n"
    )
    assert shell(fastapi) == [(7, S.CRITICAL)]
    django = (
        "import os\nfrom django.http import HttpResponse\n\n"
        "def view(request, slug):\n    os.system('echo ' + slug)\n"
    )
    assert shell(django) == [(5, S.CRITICAL)]


def test_closures_and_methods_of_local_classes() -> None:
    closure = FLASK + (
        "\ndef v():\n    t = request.args['t']\n    def inner():\n"
        "        os.system('ping ' + t)\n    inner()\n"
    )
    assert shell(closure) == [(9, S.CRITICAL)]
    method = (
        "from flask import request\n\nclass Calc:\n"
        "    def run(self, e):\n        return eval(e)\n\n"
        "def v():\n    return Calc().run(request.args['e'])\n"
    )
    (f,) = rule(new_file("app/c.py", method), HL4, "eval-exec")
    assert (f.line, f.severity) == (5, S.CRITICAL)


def test_a_hunk_reads_its_source_in_context_lines() -> None:
    diff = modify(
        "app/views.py",
        """
             host = request.args["host"]
        -    subprocess.run(["ping", host])
        +    subprocess.run("ping " + host, shell=True)
        """,
        start=20,
        heading="def ping(request):",
    )
    found = rule(diff, HL4, "shell-injection")
    assert [(f.line, f.severity) for f in found] == [(21, S.CRITICAL)]


def test_input_brought_to_an_unchanged_sink_is_reported_on_the_added_line() -> None:
    hunk = """
         import os
    -    host = "localhost"
    +    host = request.args["host"]
         os.system("ping -c 1 " + host)
    """
    diff = modify("app/views.py", hunk, start=10, heading="def ping():")
    (f,) = rule(diff, HL4, "shell-injection")
    assert (f.line, f.severity) == (11, S.CRITICAL)
    assert "The sink (app/views.py:12) is unchanged." in f.description
    unchanged_source = modify(
        "app/views.py",
        """
             host = request.args["host"]
        +    print(host)
             os.system("ping -c 1 " + host)
        """,
        start=10,
        heading="def ping():",
    )
    assert rule(unchanged_source, HL4, "shell-injection") == []


# --- constants and folding --------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        'bar = "safe" if (7 * 42) - 86 > 200 else param',
        'bar = param\n    if (500 / 42) + 196 > 200:\n        bar = "fixed"',
        'lst = ["safe", param, "more"]\n    lst.remove(lst[0])\n    bar = lst[1]',
        'm = {}\n    m["a"] = "a_value"\n    m["b"] = param\n    bar = m["a"]',
        'g = "ABC"\n    bar = param if g[1] == "A" else "bob"',
        'bar = {"A": param, "B": "bob"}.get("B", "")',
        'lst = []\n    lst.append("safe")\n    lst.append(param)\n    bar = lst.pop(0)',
    ],
)
def test_values_chosen_by_constants_are_constant(body: str) -> None:
    source = (
        FLASK
        + f"\ndef v():\n    param = request.args['p']\n    {body}\n    os.system('echo ' + bar)\n"
    )
    assert [sev for _, sev in shell(source)] == [S.LOW]


@pytest.mark.parametrize(
    "body",
    [
        'bar = param if (7 * 42) - 86 > 200 else "safe"',
        'lst = ["safe", param, "more"]\n    lst.remove(lst[0])\n    bar = lst[0]',
        'm = {}\n    m["a"] = "a_value"\n    m["b"] = param\n    bar = m["b"]',
    ],
)
def test_the_same_shapes_choosing_the_input_are_critical(body: str) -> None:
    source = (
        FLASK
        + f"\ndef v():\n    param = request.args['p']\n    {body}\n    os.system('echo ' + bar)\n"
    )
    assert [sev for _, sev in shell(source)] == [S.CRITICAL]


def test_dead_branches_are_not_run() -> None:
    assert shell(FLASK + "\nif False:\n    os.system(request.args['x'])\n") == []


# --- sanitizers and guards --------------------------------------------------------------------


@pytest.mark.parametrize(
    "guard",
    [
        "x = shlex.quote(x)",
        "x = str(int(x))",
        "if not x.isdigit():\n        abort(400)",
        "if x not in ('a', 'b'):\n        return 'no'",
        "if not re.fullmatch(r'[a-z]+', x):\n        raise ValueError(x)",
        "assert x in ALLOWED",
        "if x not in IMPORTED_NAMES:\n        return 'no'",
    ],
)
def test_sanitizers_and_guards_clean_the_command(guard: str) -> None:
    source = (
        "import os, re, shlex\nfrom flask import abort, request\nfrom app import IMPORTED_NAMES\n"
        "ALLOWED = {'a', 'b'}\n\n"
        f"def v():\n    x = request.args['x']\n    {guard}\n    os.system('echo ' + x)\n"
    )
    assert [sev for _, sev in shell(source)] == [S.LOW]


def test_a_guard_that_does_not_stop_keeps_the_taint() -> None:
    source = (
        "import os\nfrom flask import request\n\n"
        "def v():\n    x = request.args['x']\n    if not x.isdigit():\n        print('odd')\n"
        "    os.system('echo ' + x)\n"
    )
    assert [sev for _, sev in shell(source)] == [S.CRITICAL]


def test_membership_in_request_data_is_not_an_allow_list() -> None:
    source = (
        "import os\nfrom flask import request\n\ndef v():\n    x = request.args['x']\n"
        "    if x not in request.args.getlist('ok'):\n        return 'no'\n    os.system(x)\n"
    )
    assert [sev for _, sev in shell(source)] == [S.CRITICAL]


def test_a_relative_to_check_that_aborts_cleans_the_path() -> None:
    checked = (
        "from pathlib import Path\nfrom flask import abort, request\n"
        "ROOT = Path('/srv').resolve()\n"
        "def v():\n    full = (ROOT / request.args['p']).resolve()\n    try:\n"
        "        full.relative_to(ROOT)\n    except ValueError:\n        abort(403)\n"
        "    return full.read_text()\n"
    )
    assert rule(new_file("app/v.py", checked), HL4, "path-traversal") == []
    unchecked = checked.replace("        full.relative_to(ROOT)\n", "        pass\n")
    assert [f.line for f in rule(new_file("app/v.py", unchecked), HL4, "path-traversal")] == [10]


def test_shlex_quote_cleans_commands_only() -> None:
    source = (
        "import os, shlex\nfrom flask import request\n\ndef v():\n"
        "    x = shlex.quote(request.args['x'])\n    os.system('cat ' + x)\n    open(x)\n"
    )
    diff = new_file("app/v.py", source)
    assert [f.severity for f in rule(diff, HL4, "shell-injection")] == [S.LOW]
    assert [f.line for f in rule(diff, HL4, "path-traversal")] == [7]


# --- robustness -------------------------------------------------------------------------------


@pytest.mark.parametrize("terms", [800, 3000])
def test_deep_expressions_fall_back_to_patterns_without_failing(terms: int) -> None:
    """800 terms parse but nest too deeply for the engine; 3000 do not even parse."""
    deep = "x = " + " + ".join(["a"] * terms) + "\nos.system(x)\n"
    result = run(new_file("app/deep.py", "import os\n" + deep))
    found = [(f.id, f.line, f.severity) for fs in result.values() for f in fs]
    limits = [x for x in found if x[0].startswith("HL4-R-analysis-limit-")]
    assert [x for x in found if x not in limits] == [("HL4-R-shell-injection-1", 3, S.HIGH)]
    # The engine says it stopped short (medium); unparsable lines are judged by patterns.
    assert [sev for _, _, sev in limits] == ([S.MEDIUM] if terms == 800 else [])


def test_functions_beyond_the_run_budget_are_judged_by_patterns() -> None:
    calls = "".join(f"f('v{n}')\n" for n in range(450))
    source = f"import os\n\ndef f(x):\n    return x\n\n{calls}\ndef g(cmd):\n    os.system(cmd)\n"
    assert shell(source) == [(458, S.HIGH)]


def test_recursive_local_functions_terminate() -> None:
    source = (
        "import os\nfrom flask import request\n\ndef f(x, n):\n"
        "    if n:\n        return f(x, n - 1)\n"
        "    os.system(x)\n\ndef g():\n    f(request.args['x'], 3)\n"
    )
    assert [sev for _, sev in shell(source)] == [S.CRITICAL]
