"""The local checks' digest is part of the policy version: an upgrade that changes what the
checks decide reviews calls again instead of answering them by a standing decision."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import humangr.engine.checks as checks_package
from humangr.actors import roles
from humangr.engine.checks.release import checks_digest, folder_digest
from humangr.engine.config import ReviewConfig


def _copy(tmp_path: Path) -> Path:
    root = Path(checks_package.__file__).parent
    copy = tmp_path / "checks"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def test_the_digest_is_of_the_checks_content_wherever_they_are(tmp_path: Path) -> None:
    copy = _copy(tmp_path)
    assert folder_digest(copy) == checks_digest()
    (copy / "notes.txt").write_text("not code")  # neither code nor data of a check
    (copy / "__pycache__").mkdir()
    (copy / "__pycache__" / "x.json").write_text("{}")
    assert folder_digest(copy) == checks_digest()


@pytest.mark.parametrize(
    "change",
    [
        lambda root: (root / "tools" / "shell.py").write_text(
            (root / "tools" / "shell.py").read_text() + "\n# one more rule\n"
        ),
        lambda root: (root / "tools" / "resemblance_model.json").write_bytes(
            (root / "tools" / "resemblance_model.json").read_bytes().replace(b"0.85", b"0.86", 1)
        ),
        lambda root: (root / "tools" / "new_rule.py").write_text("RULE = 1\n"),
        lambda root: (root / "tools" / "shell.py").rename(root / "tools" / "shell2.py"),
    ],
    ids=["a rule edited", "the model refitted", "a rule added", "a module renamed"],
)
def test_any_change_of_a_check_changes_the_digest(tmp_path: Path, change: object) -> None:
    copy = _copy(tmp_path)
    assert callable(change)
    change(copy)
    assert folder_digest(copy) != checks_digest()


def test_the_policy_version_changes_with_the_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    config = ReviewConfig()
    shipped = roles.current_policy_version(config)
    assert roles.current_policy_version(config) == shipped
    monkeypatch.setattr(roles, "checks_digest", lambda: "0123456789abcdef")
    assert roles.current_policy_version(config) != shipped
