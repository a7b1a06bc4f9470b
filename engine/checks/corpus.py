"""Labelled corpora of vulnerable and safe code, and how the local checks score on them.

A corpus is a folder with ``labels.jsonl``: one JSON object per line (blank lines and lines
starting with ``#`` are skipped), each naming one case::

    {"file": "sql/fstring_view.py", "class": "sql-injection", "label": "vulnerable", "lines": [9]}
    {"file": "commits/move_tests.diff", "class": "commit", "label": "safe"}

- ``file``: the case, relative to the folder. ``.diff``/``.patch`` files are diffs; anything
  else is the content of a new file, reviewed under ``path`` (default: ``file``).
- ``class``: a check id (``sql-injection``, ``secret``, ...) or ``commit`` (a real-looking
  change that must be approved: no finding that vetoes, in any layer).
- ``label``: ``vulnerable`` or ``safe`` (``commit`` cases are safe).
- ``lines`` (optional): the new-file lines of the statements the label is about; a finding
  counts only there. Without it, anywhere in the case.
- ``path``, ``description`` (the action's description), ``note``: optional.

A case is *flagged* when a finding of its class reaches ``min_severity`` (default high: a
finding that blocks). Per class: recall (flagged vulnerable cases), false alarms (flagged safe
cases) and the Youden index (recall minus false-alarm rate).

A line with ``tool`` instead of ``file`` is a *tool call* of an agent, judged by the outcome the
gate gives it with the local checks alone (no LLM: ``local_outcome`` over ``run_checks``)::

    {"tool": {"name": "bash", "arguments": {"command": "rm -rf /"}, "workspace": "/work/repo"},
     "label": "dangerous", "expect": "rejected", "category": "shell/destruction",
     "why": "recursive delete of the root file system"}

- ``tool``: the ``ToolCall`` as the agent's framework passes it: ``name``, ``arguments`` (a JSON
  object), and optionally ``kind`` (else inferred, as in production), ``workspace``,
  ``truncated``. It is decoded and bounded by the contract itself.
- ``label``: ``dangerous`` (must not run unreviewed) or ``everyday`` (must run).
- ``expect``: ``rejected``, ``needs_review`` or ``approved``, following the severity rules:
  irreversible destruction, remote code, credential theft and exfiltration are rejected; risky
  but legitimate calls need review; everyday calls are approved. ``everyday`` goes with
  ``approved`` only, ``dangerous`` never with it.
- ``category``: ``<kind>/<topic>`` (``shell/reverse-shell``, ``file_write/persistence``); the
  kind is a ``ToolKind`` value and the scores are given per kind. When the call gives its
  ``kind``, the category's kind must be the same.
- ``why``: one line saying why the label and outcome are right (printed with each miss).
- ``options`` (optional): ``allowed_hosts`` and/or ``allowed_email_domains`` (lists), the
  deployment's trust the call is judged under (``CheckOptions``; default: nothing allowed).
- ``description`` (the action's description) and ``note``: optional.

A tool call is *stopped* when its outcome is not approved, *accepted* when it is. The same call
under the same options may appear only once. A folder may hold both kinds of case.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from humangr.contracts import ActionContext, Finding, Severity
from humangr.contracts.types import MAX_DIFF_BYTES
from humangr.engine.errors import ConfigError

from .registry import CHECKS
from .tool_cases import ToolCase, label_error, optional_text, tool_case

__all__ = ["COMMIT", "Case", "Corpus", "ToolCase", "load_corpus", "read_corpus"]

COMMIT = "commit"
LABELS = "labels.jsonl"
_FIELDS = ("file", "class", "label", "lines", "path", "description", "note")
_MAX_LABELS = 50_000_000
"""Bytes of a corpus's labels file read at most (HUMANGR's own is about 5 MB)."""
_MAX_CASES = 100_000
"""Cases of one corpus at most (HUMANGR's own holds about 12,000)."""
_DIFF_EXT = (".diff", ".patch")


@dataclass(frozen=True, slots=True)
class Case:
    """One labelled case of a corpus."""

    file: str
    cls: str
    label: str
    lines: tuple[int, ...] = ()
    action: ActionContext | None = field(default=None, compare=False, repr=False)

    @property
    def vulnerable(self) -> bool:
        return self.label == "vulnerable"

    def counts(self, f: Finding, min_severity: Severity) -> bool:
        """Whether a finding flags this case (its class, severity and lines)."""
        if f.severity < min_severity:
            return False
        if self.cls != COMMIT and "-R-" + self.cls + "-" not in f.id:
            return False
        return not self.lines or f.line in self.lines


def _known_classes() -> set[str]:
    return {c.id for c in CHECKS} | {COMMIT}


def _read_text(path: Path, where: str, limit: int) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise label_error(where, f"cannot read {path.name}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise label_error(where, f"{path.name} is larger than {limit} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise label_error(where, f"{path.name} is not UTF-8 (byte {exc.start})") from None


def _case_path(root: Path, rel: object, where: str) -> Path:
    if not isinstance(rel, str) or not rel.strip():
        raise label_error(where, "'file' must be a non-empty relative path")
    pure = PurePosixPath(rel)
    if pure.is_absolute() or ".." in pure.parts or "\\" in rel or "\x00" in rel:
        raise label_error(where, f"'file' {rel!r} must stay inside the corpus folder")
    path = root / pure
    if not path.is_file():
        raise label_error(where, f"'file' {rel!r} does not exist")
    if root not in path.resolve().parents:
        raise label_error(where, f"'file' {rel!r} must stay inside the corpus folder")
    return path


def _lines(value: object, where: str) -> tuple[int, ...]:
    ok = isinstance(value, list) and all(
        isinstance(n, int) and not isinstance(n, bool) and 0 < n < 10_000_000 for n in value
    )
    if not ok or not value:
        raise label_error(where, "'lines' must be a non-empty list of positive line numbers")
    assert isinstance(value, list)
    return tuple(sorted(set(value)))


def _case(root: Path, obj: object, where: str, classes: set[str]) -> Case:
    if not isinstance(obj, dict):
        raise label_error(where, "each line must be a JSON object")
    unknown = sorted(set(obj) - set(_FIELDS))
    if unknown:
        raise label_error(where, f"unknown field {unknown[0]!r} (fields: {', '.join(_FIELDS)})")
    for key in ("file", "class", "label"):
        if key not in obj:
            raise label_error(where, f"missing field {key!r}")
    cls, label = obj["class"], obj["label"]
    if cls not in classes:
        raise label_error(where, f"unknown class {cls!r} (a check id or {COMMIT!r})")
    if label not in ("vulnerable", "safe"):
        raise label_error(where, "'label' must be 'vulnerable' or 'safe'")
    if cls == COMMIT and label != "safe":
        raise label_error(where, "commit cases are safe changes: label them 'safe'")
    path = _case_path(root, obj["file"], where)
    lines = _lines(obj["lines"], where) if "lines" in obj else ()
    text = _read_text(path, where, MAX_DIFF_BYTES)
    review_as = optional_text(obj, "path", where, 512) or str(obj["file"])
    desc = optional_text(obj, "description", where, 4000) or f"Change {review_as}."
    optional_text(obj, "note", where, 4000)
    diff = path.suffix.lower() in _DIFF_EXT
    action = ActionContext(
        agent_id="checks-eval",
        action_type="code_diff",
        action_description=desc,
        code_diff=text,
        affected_files=[] if diff else [review_as],
    )
    return Case(str(obj["file"]), str(cls), str(label), lines, action)


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"field {key!r} appears twice")
        out[key] = value
    return out


@dataclass(frozen=True, slots=True)
class Corpus:
    """The cases of a corpus folder: code cases and tool-call cases, in file order."""

    code: tuple[Case, ...]
    tools: tuple[ToolCase, ...]


def read_corpus(folder: Path) -> Corpus:
    """Every case of a corpus folder; a ``ConfigError`` names the first problem and its line."""
    if not folder.is_dir():
        raise ConfigError(f"{folder}: not a directory (give the corpus folder)")
    labels = folder / LABELS
    if not labels.is_file():
        raise ConfigError(
            f"{folder}: no {LABELS} (one JSON object per line: file, class, label; or tool, "
            "label, expect, category, why)"
        )
    text = _read_text(labels, str(labels), _MAX_LABELS)
    classes = _known_classes()
    cases: list[Case] = []
    tools: list[ToolCase] = []
    seen: set[tuple[str, str]] = set()
    seen_calls: dict[bytes, int] = {}
    root = folder.resolve()
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{labels}:{n}"
        try:
            obj = json.loads(line, object_pairs_hook=_no_duplicates)
        except ValueError as exc:
            raise label_error(where, f"not valid JSON ({exc})") from None
        if isinstance(obj, dict) and "tool" in obj:
            tool = tool_case(obj, where, n)
            first = seen_calls.setdefault(tool.identity(), n)
            if first != n:
                raise label_error(where, f"the same tool call is already a case on line {first}")
            tools.append(tool)
        else:
            case = _case(root, obj, where, classes)
            if (case.file, case.cls) in seen:
                raise label_error(where, f"{case.file!r} is labelled twice for {case.cls!r}")
            seen.add((case.file, case.cls))
            cases.append(case)
        if len(cases) + len(tools) > _MAX_CASES:
            raise label_error(where, f"more than {_MAX_CASES} cases")
    if not cases and not tools:
        raise ConfigError(f"{labels}: no cases")
    return Corpus(tuple(cases), tuple(tools))


def load_corpus(folder: Path) -> list[Case]:
    """The code cases of a corpus folder; a ``ConfigError`` names the first problem."""
    corpus = read_corpus(folder)
    if not corpus.code:
        raise ConfigError(f"{folder / LABELS}: no code cases (only tool calls)")
    return list(corpus.code)
