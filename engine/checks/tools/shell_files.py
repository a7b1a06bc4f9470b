"""Shell found in the files of a change: shell scripts (by extension or shebang), Dockerfile
``RUN`` instructions, Makefile recipes, CI steps (GitHub Actions ``run:``, GitLab
``script:``, CircleCI ``command:``, a Jenkinsfile's ``sh`` steps, …), ``package.json``
scripts and the literal commands a Python file starts (``os.system('…')``), each cut into
units to judge with its line number.

The new side of each hunk (context and added lines) is read so a command whose head is
context is still whole; a unit is judged only when one of its lines was added. YAML is read
leniently by indentation, without a YAML library.

Configuration values are not read in systemd units and crontabs (``HOST_JOB_KINDS``):
``config_files`` judges their commands, in the host's context, so each is reported once.
"""

from __future__ import annotations

import dataclasses
import json
import posixpath
import re
import shlex
from collections.abc import Callable
from functools import partial

from ..config_kinds import HOST_JOB_KINDS, config_kind
from ..diff import FileDiff
from ..languages import other_code
from .shell_file_units import MAX_UNITS, Line, Unit, unit
from .shell_files_run import (
    cmake_calls,
    code_calls,
    config_values,
    jenkins_calls,
    npm_scripts,
    python_calls,
    requirements,
)

__all__ = ["Unit", "script_units"]

_MAX_LINES = 5000
_SHEBANG = re.compile(r"^#!\s*\S*(?:/|\benv\s+)(?:ba|z|k|da|a|mk)?sh\b")
_CI = re.compile(
    r"(?:^|/)(?:\.github/workflows/[^/]+|\.gitlab-ci|\.gitlab/ci/[^/]+|\.circleci/config|"
    r"bitbucket-pipelines|azure-pipelines|\.travis|\.drone|action|\.woodpecker/[^/]+|"
    r"\.buildkite/pipeline|codemagic|cloudbuild|buildspec)\.ya?ml$",
    re.IGNORECASE,
)
_CI_KEY = re.compile(
    r"^(\s*)(?:-\s+)?(run|script|before_script|after_script|command|commands|cmd|bash|sh|"
    r"pre_build|build|post_build|install|inline)\s*:[ \t]*(.*)$"
)
"""A CI key whose value runs (its value's trailing blanks are stripped after the match: a
lazy ``(.*?)\\s*$`` retried the blanks from each position, quadratic on a long run)."""
_RUN = re.compile(r"^\s*(?:RUN|CMD|ENTRYPOINT)\s+(.*)$", re.IGNORECASE)
"""What a container build or the container runs: ``RUN`` lines, and its ``CMD``/``ENTRYPOINT``."""
_CONFIG_ENDINGS = (
    ".json",
    ".jsonc",
    ".yml",
    ".yaml",
    ".toml",
    ".ini",
    ".cfg",
    ".conf",
    ".desktop",
    ".service",
    ".timer",
    ".plist",
)
_SCRIPT_ENDINGS = (".sh", ".bash", ".zsh", ".ksh", ".command", ".slurm", ".sbatch", ".pbs", ".qsub")
"""Shell scripts, batch jobs of HPC schedulers included (``#SBATCH`` lines are comments)."""
_REQUIREMENTS = re.compile(r"^(?:requirements|constraints)[\w.-]*\.(?:txt|in)$")
_SHELL_NAMES = frozenset(
    {".envrc", ".bashrc", ".bash_profile", ".profile", ".zshrc", ".zprofile", ".zshenv"}
)
"""Files a shell runs though their names have no extension (direnv runs ``.envrc``)."""
_HOOK_FOLDER = re.compile(r"(?:^|/)(?:\.husky|\.githooks|\.git/hooks)/(?!_/)[^/.][^/]*$")
"""Git hooks kept in the repository (husky, a ``core.hooksPath`` folder): shell scripts."""
_BACKTICK_LANGUAGES = frozenset({"Ruby", "PHP", "Perl", "Julia"})
"""Languages in which a backquoted string is a command that runs."""
_MAKE_VAR = re.compile(r"\$[({](\w+)[)}]")
_MAKE_FUNC = re.compile(r"\$\((?!shell\s)[\w-]+\s[^()]*\)")


def _runs(file: FileDiff) -> list[list[Line]]:
    runs: list[list[Line]] = []
    total = 0
    for hunk in file.hunks:
        run = [
            (ln.new, ln.text, ln.kind == "+")
            for ln in hunk.lines
            if ln.kind != "-" and ln.new is not None
        ]
        total += len(run)
        if total > _MAX_LINES:
            break
        if any(added for _, _, added in run):
            runs.append(run)
    return runs


def _kind(file: FileDiff, runs: list[list[Line]]) -> str | None:
    path = (file.path or "").replace("\\", "/")
    name = posixpath.basename(path).lower()
    if (
        name in ("dockerfile", "containerfile")
        or name.startswith("dockerfile.")
        or name.endswith((".dockerfile", ".containerfile"))
    ):
        return "docker"
    if name in ("makefile", "gnumakefile") or name.endswith(".mk"):
        return "make"
    if name == "cmakelists.txt" or name.endswith(".cmake"):
        return "cmake"
    if name == "jenkinsfile" or name.startswith("jenkinsfile.") or name.endswith(".jenkinsfile"):
        return "jenkins"
    if _CI.search(path):
        return "ci"
    if name.endswith(_SCRIPT_ENDINGS) or name in _SHELL_NAMES:
        return "shell"
    if _HOOK_FOLDER.search(path):
        return "shell"
    if _REQUIREMENTS.match(name):
        return "requirements"
    if name.endswith(_CONFIG_ENDINGS):
        return "config"
    if name == "package.json":
        return "npm"
    if name.endswith((".py", ".pyw")):
        return "python"
    language = other_code(name)
    if language is not None:
        return "backticks" if language in _BACKTICK_LANGUAGES else "code"
    first = next((text for run in runs for n, text, _ in run if n == 1), "")
    return "shell" if _SHEBANG.match(first) else None


def _logical(run: list[Line]) -> list[list[Line]]:
    """Lines joined by trailing backslashes."""
    out: list[list[Line]] = []
    cur: list[Line] = []
    for item in run:
        cur.append(item)
        if not item[1].rstrip().endswith("\\"):
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def _shell(runs: list[list[Line]]) -> list[Unit | None]:
    units: list[Unit | None] = []
    for run in runs:
        for group in _logical(run):
            units.append(unit(group, "\n".join(t for _, t, _ in group), problems=False))
        whole = unit(run, "\n".join(t for _, t, _ in run), problems=run[0][0] == 1)
        if whole is not None:
            old = tuple(
                "\n".join(t for _, t, _ in g) for g in _logical(run) if not any(a for _, _, a in g)
            )
            units.append(Unit(whole.text, whole.line, whole.report_problems, old[:50]))
    return units


def _docker(runs: list[list[Line]]) -> list[Unit | None]:
    units: list[Unit | None] = []
    for run in runs:
        i = 0
        while i < len(run):
            m = _RUN.match(run[i][1])
            if m is None:
                i += 1
                continue
            group = [run[i]]
            body = re.sub(r"^(?:--\S+\s+)*", "", m.group(1))
            heredoc = re.match(r"^<<-?\s*['\"]?(\w+)['\"]?\s*(.*)$", body)
            while (heredoc or group[-1][1].rstrip().endswith("\\")) and i + 1 < len(run):
                i += 1
                group.append(run[i])
                if heredoc and run[i][1].strip() == heredoc.group(1):
                    break
            lines = [body] + [t for _, t, _ in group[1:] if not t.lstrip().startswith("#")]
            text = "\n".join(lines)
            if heredoc:
                text = "\n".join(t for _, t, _ in group[1:-1])
            elif body.lstrip().startswith("["):
                try:
                    argv = json.loads(body)
                    text = shlex.join(str(a) for a in argv) if isinstance(argv, list) else text
                except ValueError:
                    pass
            found = unit(group, text)
            units.append(dataclasses.replace(found, in_image=True) if found else None)
            i += 1
    return units


def _make_text(text: str) -> str:
    text = re.sub(r"^\t[@+\-\s]*", "", text).replace("$$", "\x00")
    text = _MAKE_VAR.sub(lambda m: m.group(1), text)
    text = _MAKE_FUNC.sub("MAKEFUNC", text).replace("$(shell ", "$(")
    return re.sub(r"\$[@<^*?%+|]", "target", text).replace("\x00", "$")


def _make(runs: list[list[Line]]) -> list[Unit | None]:
    units: list[Unit | None] = []
    for run in runs:
        for group in _logical(run):
            if group[0][1].startswith("\t"):
                units.append(unit(group, "\n".join(_make_text(t) for _, t, _ in group)))
    return units


_COMMENT = re.compile(r"\s#")
"""Where a YAML value's comment starts (a ``#`` after a blank)."""


def _scalar(value: str) -> str:
    v = value.strip()
    if len(v) >= 2 and v[0] == v[-1] == "'":
        return v[1:-1].replace("''", "'")
    if len(v) >= 2 and v[0] == v[-1] == '"':
        try:
            loaded = json.loads(v)
            return loaded if isinstance(loaded, str) else v[1:-1]
        except ValueError:
            return v[1:-1]
    comment = _COMMENT.search(v)  # linear: a run of blanks is never scanned again and again
    return v if comment is None else v[: comment.start()].rstrip()


def _block(run: list[Line], start: int, indent: int) -> tuple[list[Line], int]:
    """The lines more indented than ``indent`` after ``start``."""
    out: list[Line] = []
    j = start
    while j < len(run):
        text = run[j][1]
        if text.strip() and len(text) - len(text.lstrip()) <= indent:
            break
        out.append(run[j])
        j += 1
    return out, j


def _dedent(lines: list[Line], fold: bool) -> str:
    texts = [t for _, t, _ in lines]
    margin = min((len(t) - len(t.lstrip()) for t in texts if t.strip()), default=0)
    body = [t[margin:] for t in texts]
    return " ".join(b.strip() for b in body) if fold else "\n".join(body)


def _ci(runs: list[list[Line]]) -> list[Unit | None]:
    units: list[Unit | None] = []
    for run in runs:
        i = 0
        while i < len(run):
            m = _CI_KEY.match(run[i][1])
            if m is None:
                i += 1
                continue
            indent, value = len(m.group(1)), m.group(3).rstrip()
            if value[:1] in ("|", ">"):
                block, i = _block(run, i + 1, indent)
                units.append(unit(block, _dedent(block, value[0] == ">")))
                continue
            if value and not value.startswith("#"):
                if value.startswith("["):
                    flow = [_scalar(x) for x in value.strip("[]").split(",")]
                    units.append(unit([run[i]], "\n".join(flow)))
                else:
                    units.append(unit([run[i]], _scalar(value)))
                i += 1
                continue
            items, i = _block(run, i + 1, indent - 1)
            k = 0
            while k < len(items):
                item = re.match(r"^(\s*)-\s+(.*)$", items[k][1])
                if item is None:
                    k += 1
                    continue
                if item.group(2)[:1] in ("|", ">"):
                    block, end = _block(items, k + 1, len(item.group(1)))
                    units.append(unit(block, _dedent(block, item.group(2)[0] == ">")))
                    k = max(end, k + 1)
                else:
                    units.append(unit([items[k]], _scalar(item.group(2))))
                    k += 1
    return units


def script_units(file: FileDiff) -> list[Unit]:
    """The shell in ``file`` as units to judge; none when the file holds no shell."""
    if file.binary or file.deleted:
        return []
    runs = _runs(file)
    kind = _kind(file, runs) if runs else None
    if kind is None or (kind == "config" and config_kind(file.path or "") in HOST_JOB_KINDS):
        return []
    readers: dict[str, Callable[[list[list[Line]]], list[Unit | None]]] = {
        "shell": _shell,
        "docker": _docker,
        "make": _make,
        "cmake": cmake_calls,
        "ci": _ci,
        "npm": npm_scripts,
        "python": python_calls,
        "code": code_calls,
        "jenkins": jenkins_calls,
        "backticks": partial(code_calls, backticks=True),
        "config": config_values,
        "requirements": requirements,
    }
    reader = readers[kind]
    units = [u for u in reader(runs) if u is not None][:MAX_UNITS]
    if kind == "ci":
        units = [
            Unit(re.sub(r"\$\{\{.*?\}\}", "GHA_EXPR", u.text), u.line, u.report_problems)
            for u in units
        ]
    return units
