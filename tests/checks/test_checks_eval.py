"""``humangr checks-eval``: our corpus scores at least what the repository records; any labelled
folder is scored, with bandit beside us; bad folders and labels exit 3 with one line."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from humangr.cli.main import main
from humangr.engine.checks.corpus import load_corpus
from humangr.engine.checks.eval_report import load_minimums, shortfalls
from humangr.engine.checks.scoring import Scores, evaluate
from humangr.engine.errors import ConfigError

HERE = Path(__file__).parent
CORPUS = HERE / "corpus"
MINIMUMS = HERE / "corpus_minimums.json"


@pytest.fixture(scope="module")
def scores() -> Scores:
    return evaluate(load_corpus(CORPUS))


def test_the_corpus_scores_at_least_the_recorded_minimums(scores: Scores) -> None:
    assert shortfalls(scores, load_minimums(MINIMUMS)) == []


def test_checks_eval_passes_the_recorded_minimums_on_the_corpus(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["checks-eval", str(CORPUS), "--minimums", str(MINIMUMS), "--no-bandit"]
    assert main([*args, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["shortfalls"] == []
    assert len(report["cases"]) == len(load_corpus(CORPUS))


def test_the_corpus_covers_every_claimed_class_both_ways(scores: Scores) -> None:
    from humangr.engine.checks import CHECKS

    # The classes claimed by the checks of tool calls are covered by the tool-call corpus
    # (tests/checks/tool_calls, test_tool_calls_eval.py); this corpus covers those of code.
    claimed = {
        c.id
        for c in CHECKS
        if c.claim and not c.run.__module__.startswith("humangr.engine.checks.tools.")
    }
    by_class = {c.cls: c for c in scores.classes}
    assert claimed <= set(by_class)
    for cls in claimed:
        assert by_class[cls].vulnerable >= 11, cls
        assert by_class[cls].safe >= 9, cls
    assert by_class["commit"].safe >= 24


def test_bandit_figures_are_computed_beside_ours(scores: Scores) -> None:
    assert scores.bandit
    by_class = {c.cls: c for c in scores.classes}
    assert by_class["shell-injection"].bandit_recall is not None
    assert scores.bandit_overall["youden"] is not None
    # bandit cannot tell request input from constants: it flags most safe variants too
    shell = by_class["shell-injection"]
    assert shell.bandit_false_alarms is not None
    assert shell.bandit_false_alarms > 0.75


def _corpus(tmp_path: Path, labels: Sequence[object] | str, files: dict[str, str]) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    body = labels if isinstance(labels, str) else "".join(json.dumps(x) + "\n" for x in labels)
    (tmp_path / "labels.jsonl").write_text(body)
    return tmp_path


VULN = "import os\nfrom flask import request\nos.system(request.args['c'])\n"
SAFE = "import subprocess\nsubprocess.run(['ls', '-l'])\n"


def _small(tmp_path: Path) -> Path:
    labels = [
        {"file": "v.py", "class": "shell-injection", "label": "vulnerable", "lines": [3]},
        {"file": "s.py", "class": "shell-injection", "label": "safe"},
        {"file": "s2.py", "class": "shell-injection", "label": "safe", "note": "missed on purpose"},
    ]
    return _corpus(tmp_path, labels, {"v.py": VULN, "s.py": SAFE, "s2.py": VULN})


def test_text_report_of_any_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["checks-eval", str(_small(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "shell-injection" in out
    assert "false alarm: s2.py (shell-injection)" in out
    assert "bandit:" in out


def test_json_report_and_minimums(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _small(tmp_path)
    assert main(["checks-eval", str(folder), "--format", "json", "--no-bandit"]) == 0
    report = json.loads(capsys.readouterr().out)
    shell = report["classes"]["shell-injection"]
    assert (shell["recall"], shell["false_alarms"], shell["youden"]) == (1.0, 0.5, 0.5)
    assert report["bandit"] is False
    assert [c["flagged"] for c in report["cases"]] == [True, False, True]
    record = tmp_path / "min.json"
    record.write_text(json.dumps({"classes": {"shell-injection": {"false_alarms": 0.1}}}))
    assert main(["checks-eval", str(folder), "--no-bandit", "--minimums", str(record)]) == 1
    out = capsys.readouterr().out
    assert "below the recorded scores: class shell-injection: false_alarms 0.5000 above" in out


def test_a_lower_severity_threshold_counts_low_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = [{"file": "c.py", "class": "shell-injection", "label": "safe"}]
    folder = _corpus(tmp_path, labels, {"c.py": "import os\nos.system('uptime')\n"})
    main(["checks-eval", str(folder), "--format", "json", "--no-bandit"])
    assert json.loads(capsys.readouterr().out)["cases"][0]["flagged"] is False
    main(["checks-eval", str(folder), "--format", "json", "--no-bandit", "--min-severity", "low"])
    assert json.loads(capsys.readouterr().out)["cases"][0]["flagged"] is True


def test_content_reviewed_under_another_path_and_commit_cases(tmp_path: Path) -> None:
    labels = [
        {"file": "k.py", "class": "tls-verification", "label": "safe", "path": "tests/test_k.py"},
        {"file": "c.diff", "class": "commit", "label": "safe", "description": "Move tests."},
    ]
    move = (
        "diff --git a/tests/test_a.py b/tests/test_a.py\ndeleted file mode 100644\n"
        "--- a/tests/test_a.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-def test_a():\n-    pass\n"
        "diff --git a/tests/unit/test_a.py b/tests/unit/test_a.py\nnew file mode 100644\n"
        "--- /dev/null\n+++ b/tests/unit/test_a.py\n@@ -0,0 +1,2 @@\n+def test_a():\n+    pass\n"
    )
    tls = "import requests\nrequests.get('https://x', verify=False)\n"
    folder = _corpus(tmp_path, labels, {"k.py": tls, "c.diff": move})
    results = evaluate(load_corpus(folder), bandit=False).results
    assert [r.flagged for r in results] == [False, False]


BAD_LABELS = [
    ("{not json\n", "not valid JSON"),
    ('{"file": "v.py", "class": "shell-injection", "label": "safe", "x": 1}\n', "unknown field"),
    ('{"file": "v.py", "file": "v.py", "class": "secret", "label": "safe"}\n', "appears twice"),
    ('{"file": "v.py", "class": "nope", "label": "safe"}\n', "unknown class"),
    ('{"file": "v.py", "class": "secret", "label": "maybe"}\n', "'label' must be"),
    ('{"file": "v.py", "class": "commit", "label": "vulnerable"}\n', "commit cases are safe"),
    ('{"file": "../v.py", "class": "secret", "label": "safe"}\n', "inside the corpus"),
    ('{"file": "/etc/passwd", "class": "secret", "label": "safe"}\n', "inside the corpus"),
    ('{"file": "gone.py", "class": "secret", "label": "safe"}\n', "does not exist"),
    ('{"file": "v.py", "class": "secret", "label": "safe", "lines": [0]}\n', "'lines' must"),
    ('{"file": "v.py", "class": "secret", "label": "safe", "lines": "3"}\n', "'lines' must"),
    ('{"class": "secret", "label": "safe"}\n', "missing field 'file'"),
    ("[1, 2]\n", "JSON object"),
    ("# only a comment\n\n", "no cases"),
    (
        '{"file": "v.py", "class": "secret", "label": "safe"}\n' * 2,
        "labelled twice",
    ),
]


@pytest.mark.parametrize(("labels", "problem"), BAD_LABELS)
def test_bad_labels_exit_3_with_one_line(
    tmp_path: Path, labels: str, problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _corpus(tmp_path / "c", labels, {"v.py": VULN})
    assert main(["checks-eval", str(folder)]) == 3
    err = capsys.readouterr().err
    assert problem in err
    assert err.startswith("humangr checks-eval: ")
    assert err.count("\n") == 1


def test_unreadable_folders_and_files_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["checks-eval", str(tmp_path / "missing")]) == 3
    assert "not a directory" in capsys.readouterr().err
    assert main(["checks-eval", str(tmp_path)]) == 3
    assert "no labels.jsonl" in capsys.readouterr().err
    folder = _corpus(tmp_path / "b", [{"file": "b.py", "class": "secret", "label": "safe"}], {})
    (folder / "b.py").write_bytes(b"x = '\xff\xfe'\n")
    assert main(["checks-eval", str(folder)]) == 3
    assert "not UTF-8" in capsys.readouterr().err
    (folder / "b.py").write_bytes(b"#" * 1_000_001)
    assert main(["checks-eval", str(folder)]) == 3
    assert "larger than" in capsys.readouterr().err
    (folder / "labels.jsonl").write_bytes(b'{"file": "\xff"}\n')
    assert main(["checks-eval", str(folder)]) == 3
    assert "not UTF-8" in capsys.readouterr().err


def test_a_symlink_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "secret.py"
    outside.write_text(VULN)
    folder = _corpus(tmp_path / "c", [{"file": "l.py", "class": "secret", "label": "safe"}], {})
    (folder / "l.py").symlink_to(outside)
    with pytest.raises(ConfigError, match="inside the corpus"):
        load_corpus(folder)


@pytest.mark.parametrize(
    ("record", "problem"),
    [
        ("{", "not valid JSON"),
        ('{"classes": {"secret": {"recall": 2}}}', "between -1 and 1"),
        ('{"classes": {"secret": {"precision": 1}}}', "unknown metric"),
        ('{"overall": {"recall": true}}', "between -1 and 1"),
        ('{"other": 1}', "expected an object"),
    ],
)
def test_bad_minimums_exit_3(
    tmp_path: Path, record: str, problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _small(tmp_path / "c")
    path = tmp_path / "min.json"
    path.write_text(record)
    assert main(["checks-eval", str(folder), "--no-bandit", "--minimums", str(path)]) == 3
    assert problem in capsys.readouterr().err


def test_minimums_for_a_class_the_corpus_lacks_are_shortfalls(scores: Scores) -> None:
    assert shortfalls(scores, {"classes": {"todo": {"recall": 0.5}}, "overall": {"": {}}}) == [
        "class todo: not in the corpus"
    ]
