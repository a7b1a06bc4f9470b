"""HL2 ``deleted-test``: tests a change deletes, told apart from tests it moves or retires.

A test counts as gone when its definition is removed and the same name is added nowhere in
the diff; nothing is reported when the diff adds at least as many new tests as it loses (tests
renamed, restructured or moved between files). Not a deletion either: a file renamed, moved or
split (its tests re-added elsewhere, or new test files holding at least as many tests), old
tests turned into one parametrized test, a deleted file under a test folder that held no tests
(``__init__.py``, fixtures, helpers). Severity: high, but medium when the action's description
says tests are removed (the reviewer reads why) and low when the code the test exercised is
removed in the same diff.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

from humangr.contracts import ActionContext, Severity

from .base import CheckInput, Hit, is_python, is_test_path
from .diff import FileDiff

__all__ = ["defined_test", "deleted_tests"]

_PY_TEST_DEF = re.compile(r"^\s*(?:async\s+)?def\s+(test\w*)\s*\(")
_JS_TEST = re.compile(r"^\s*(?:it|test)(?:\.only|\.skip)?\s*\(\s*([\"'`])(.{1,200}?)\1")
_TEST_FILE = re.compile(r"^(?:test_.*|.*_test)\.py$|\.(?:spec|test)\.[jt]sx?$")
_CODE_DEF = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)")
_EXPLAINED = re.compile(
    r"(?i)\b(?:remov|delet|drop|retir|prun)\w*\b[^.\n]{0,60}\btests?\b"
    r"|\btests?\b[^.\n]{0,60}\b(?:remov|delet|drop|retir|obsolete|no longer)\w*"
)
_FIX = "Keep the tests, or explain in the action why they are obsolete and what replaces them."


def defined_test(path: str | None, text: str) -> str | None:
    """The test a line defines (``def test_x(`` in Python; ``it("...")`` in a test file)."""
    m = _PY_TEST_DEF.match(text)
    if m:
        return m.group(1)
    if is_test_path(path):
        j = _JS_TEST.match(text)
        if j:
            return j.group(2)
    return None


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


@dataclass(slots=True)
class _Diff:
    added_tests: set[str]
    removed_tests: set[str]
    new_tests: int
    """Tests defined in added lines of new or renamed files."""
    removed_code: set[str]
    new_names: set[str]
    explained: bool


def _survey(ctx: CheckInput) -> _Diff:
    added: set[str] = set()
    removed: set[str] = set()
    new_tests = 0
    added_code: set[str] = set()
    removed_code: set[str] = set()
    for f in ctx.files:
        for ln in f.added:
            name = defined_test(f.path, ln.text)
            if name:
                added.add(name)
                new_tests += f.new_file or f.renamed
            elif (m := _CODE_DEF.match(ln.text)) is not None:
                added_code.add(m.group(1))
        removed.update(n for ln in f.removed if (n := defined_test(f.path, ln.text)))
        if not is_test_path(f.path):
            for ln in f.removed:
                m = _CODE_DEF.match(ln.text)
                if m and not m.group(1).startswith("test"):
                    removed_code.add(_snake(m.group(1)))
    removed_code -= {_snake(n) for n in added_code}
    new_names = {PurePosixPath(f.path).name for f in ctx.files if f.path and not f.deleted}
    return _Diff(added, removed, new_tests, removed_code, new_names, _explained(ctx.action))


def _explained(action: ActionContext) -> bool:
    return bool(_EXPLAINED.search(action.action_description[:20_000]))


_IDENT = re.compile(r"[A-Za-z_]\w{2,}")
_BLOCK_START = re.compile(r"^(?:\s*(?:async\s+)?def\s|\s*class\s|\S)")


def _bodies(f: FileDiff) -> dict[str, set[str]]:
    """The identifiers used in the removed lines of each removed test of a file."""
    out: dict[str, set[str]] = {}
    current: str | None = None
    for ln in f.removed:
        name = defined_test(f.path, ln.text)
        if name is not None:
            current = name
            out[name] = set()
        elif current is not None and _BLOCK_START.match(ln.text):
            current = None
        elif current is not None:
            out[current].update(_snake(w) for w in _IDENT.findall(ln.text[:2000]))
    return out


def _retired(name: str, removed_code: set[str], used: set[str]) -> bool:
    """The test exercised code this diff removes (by its name or its body)."""
    subject = _snake(name).removeprefix("test").strip("_ ")
    return any(len(code) >= 3 and (code in subject or code in used) for code in removed_code)


def _severity(names: list[str], d: _Diff, bodies: dict[str, set[str]]) -> tuple[Severity, str]:
    if names and all(_retired(n, d.removed_code, bodies.get(n, set())) for n in names):
        return Severity.LOW, " together with the code it tests"
    if d.explained:
        return Severity.MEDIUM, " (the action says tests are removed; check that it says why)"
    return Severity.HIGH, ""


def _deleted_file(f: FileDiff, d: _Diff) -> Hit | None:
    names = [n for ln in f.removed if (n := defined_test(f.path, ln.text))]
    if not names and not (f.removed == () and _TEST_FILE.search(PurePosixPath(f.path or "").name)):
        return None
    if PurePosixPath(f.path or "").name in d.new_names:
        return None
    gone = [n for n in names if n not in d.added_tests]
    if names and (len(gone) * 2 <= len(names) or d.new_tests >= len(names)):
        return None
    sev, why = _severity(gone, d, _bodies(f))
    return Hit(
        severity=sev,
        title="Test file deleted",
        description=f"{f.path} is deleted by this change{why}; "
        f"{len(gone)} of its tests are not re-added elsewhere.",
        suggestion=_FIX,
        file=f.path,
    )


def _parametrized(f: FileDiff) -> bool:
    """New tests in the file are parametrized: several old tests became cases of one."""
    return any("parametrize" in ln.text or "subTest" in ln.text for ln in f.added)


def deleted_tests(ctx: CheckInput) -> Iterator[Hit]:
    """A deleted test file or removed test functions, not moved, split or renamed."""
    if not any(f.deleted or f.removed for f in ctx.files):
        return  # nothing is taken away (every tool call but a delete or an edit)
    d = _survey(ctx)
    gone = d.removed_tests - d.added_tests
    if gone and len(d.added_tests - d.removed_tests) >= len(gone):
        return
    for f in ctx.files:
        if f.deleted:
            if is_test_path(f.path) or any(defined_test(f.path, ln.text) for ln in f.removed):
                hit = _deleted_file(f, d)
                if hit is not None:
                    yield hit
            continue
        if not (is_python(f) or is_test_path(f.path)):
            continue
        removed = {name: ln for ln in f.removed if (name := defined_test(f.path, ln.text))}
        added = {name for ln in f.added if (name := defined_test(f.path, ln.text))}
        missing = [n for n in removed if n not in d.added_tests]
        new = added - set(removed)
        if not missing or len(new) >= len(missing) or (new and _parametrized(f)):
            continue
        bodies = _bodies(f)
        for name in missing:
            ln = removed[name]
            sev, why = _severity([name], d, bodies)
            yield Hit(
                severity=sev,
                title="Test removed",
                description=f"{f.path}: test {name!r} (line {ln.number} of the old file) is "
                f"removed and not replaced{why}.",
                suggestion=_FIX,
                file=f.path,
                line=ln.number,
            )
