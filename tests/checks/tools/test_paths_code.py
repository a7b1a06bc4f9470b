"""Constant file operations in Python code to run (``run_python(code=…)``) are judged as the
paths of a file tool: the folding of paths (``paths_code``) and the decision."""

from __future__ import annotations

import pytest
from tool_helpers import decide

from humangr.contracts import Outcome
from humangr.engine.checks.tools.paths_code import code_targets

WS = "/work/repo"
OK, REVIEW, REJECT = Outcome.APPROVED, Outcome.NEEDS_REVIEW, Outcome.REJECTED

# (code, outcome, reason)
CASES = [
    ("import shutil\nshutil.rmtree('/')\n", REJECT, "the whole file system"),
    ("import shutil, os\nshutil.rmtree(os.path.expanduser('~'))\n", REJECT, "the home"),
    ("import shutil\nfrom pathlib import Path\nshutil.rmtree(Path.home())\n", REJECT, "home"),
    ("import os\nos.remove('/etc/hosts')\n", REJECT, "a system file deleted"),
    ("import os\nos.unlink(os.path.join(os.getenv('HOME'), '.bash_history'))\n", REJECT, "traces"),
    ("open('/home/u/.ssh/authorized_keys', 'a').write('ssh-rsa AAAA')\n", REJECT, "SSH door"),
    (
        "import os\nwith open(os.path.join(os.environ['HOME'], '.bashrc'), 'a') as f:\n"
        "    f.write('x')\n",
        REJECT,
        "a profile through os.environ",
    ),
    (
        "from pathlib import Path\n(Path.home() / '.ssh' / 'authorized_keys').write_text('k')\n",
        REJECT,
        "pathlib division",
    ),
    ("from pathlib import Path\nPath('~/.zshrc').expanduser().open('a')\n", REJECT, "Path.open"),
    ("p = '/etc/shadow'\nprint(open(p).read())\n", REJECT, "a name assigned a constant"),
    ("home = '~'\nprint(open(f'{home}/.aws/credentials').read())\n", REJECT, "an f-string"),
    ("import os\nfd = os.open('/etc/sudoers', os.O_WRONLY | os.O_APPEND)\n", REJECT, "os.open"),
    ("import shutil\nshutil.copy('/home/u/.aws/credentials', '/tmp/c')\n", REJECT, "a copy"),
    ("import os\nos.rename('/home/u/.kube/config', '/tmp/k')\n", REJECT, "a move"),
    ("import glob\nprint(glob.glob('/home/*/.ssh/id_*'))\n", REJECT, "listing keys"),
    (
        "import os\nfor root, _, files in os.walk(os.path.expanduser('~/projects')):\n"
        "    for name in files:\n        os.remove(os.path.join(root, name))\n",
        REJECT,
        "a loop deleting what it walks: every project",
    ),
    (
        "from pathlib import Path\nfor p in Path('/etc').rglob('*'):\n    p.unlink()\n",
        REJECT,
        "a loop deleting the system configuration",
    ),
    (
        "import glob, os\nfor f in glob.glob('/var/log/*.log'):\n    os.remove(f)\n",
        REJECT,
        "a loop deleting the system logs",
    ),
    (
        "import glob, os\nfor f in glob.glob('build/*.o'):\n    os.remove(f)\n",
        OK,
        "a loop deleting build output",
    ),
    (
        "import os\nfor f in os.listdir('logs'):\n    print(f)\n",
        OK,
        "a loop that deletes nothing",
    ),
    ("open('../../outside.txt', 'w').write('x')\n", REVIEW, "leaving the workspace"),
    ("print(open('/etc/os-release').read())\n", OK, "an ordinary read"),
    ("with open('results.txt', 'w') as f:\n    f.write('ok')\n", OK, "a result file"),
    ("import os\nos.remove('build/tmp.o')\n", OK, "a build file"),
    ("import os\nprint(os.listdir('.'))\n", OK, "listing the workspace"),
    ("import os\nos.remove(input())\n", OK, "a path that is not a constant is not known"),
    ("x = = 1", OK, "code that does not parse"),
]


@pytest.mark.parametrize(("code", "outcome", "reason"), CASES, ids=[c[2] for c in CASES])
def test_file_operations_in_code(code: str, outcome: Outcome, reason: str) -> None:
    got, findings, reasons = decide("run_python", {"code": code}, workspace=WS)
    assert got is outcome, (reason, reasons)
    mine = [f for f in findings if "-R-tool-file-" in f.id]
    assert bool(mine) is (outcome is not OK), mine
    assert all(f.argument == "code" for f in mine)


def test_folded_operations() -> None:
    code = (
        "import os, shutil\nfrom pathlib import Path\n"
        "base = '/srv'\n"
        "shutil.move(base + '/a', os.path.join(base, 'b'))\n"
        "Path('x').write_bytes(b'')\n"
        "Path('y').read_text()\n"
        "open('z', 'rb')\n"
        "os.remove(Path('/q') / 'r')\n"
    )
    assert [(t.op, t.raw) for t in code_targets(code, "code")] == [
        ("move", "/srv/a"),
        ("write", "/srv/b"),
        ("write", "x"),
        ("read", "y"),
        ("read", "z"),
        ("delete", "/q/r"),
    ]


def test_other_languages_are_read_as_the_command_that_runs_them() -> None:
    js = {"code": "require('fs').rmSync('/', {recursive: true})", "language": "javascript"}
    assert decide("execute_code", js)[0] is not OK
    assert decide("bash", {"command": "echo hi"})[0] is OK
