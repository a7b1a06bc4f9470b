"""Files that run by themselves, and binary patches nobody can read.

Some files are code that runs without anyone calling it: a ``.pth`` line starting with
``import`` runs at every interpreter start, ``sitecustomize.py`` too, git hooks on every
commit, CI workflows on every push (with the repository's secrets), ``.envrc`` on entering
the folder, ``package.json`` install scripts at every ``npm install``. (Home and system paths —
shell profiles, cron, systemd — are the tool-call path checks' concern: a diff's paths are the
repository's.) Writing one is a finding of
its own, whatever the code says. A ``GIT binary patch`` for a text file is decoded and read
when it is a ``literal``; a ``delta`` (or a block that does not decode) writes code no check
can read: critical. Compiled code and pickles added to a change cannot be read by anyone.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .base import CheckInput, Hit, snippet
from .diff import FileDiff
from .tools.paths_hooks import local_hook_script

__all__ = [
    "BINARY_EXTENSIONS",
    "autoexec_files",
    "binary_patches",
    "is_build_step",
    "is_ci_file",
    "is_real_path",
]

BINARY_EXTENSIONS = frozenset(
    [
        ".png",
        ".jpg",
        ".jpeg",
        ".gif",
        ".bmp",
        ".ico",
        ".icns",
        ".webp",
        ".tif",
        ".tiff",
        ".psd",
        ".pdf",
        ".zip",
        ".gz",
        ".tgz",
        ".bz2",
        ".xz",
        ".7z",
        ".rar",
        ".tar",
        ".zst",
        ".woff",
        ".woff2",
        ".ttf",
        ".otf",
        ".eot",
        ".mp3",
        ".mp4",
        ".wav",
        ".ogg",
        ".flac",
        ".avi",
        ".mov",
        ".mkv",
        ".webm",
        ".sqlite",
        ".sqlite3",
        ".db",
        ".parquet",
        ".npy",
        ".npz",
        ".h5",
        ".onnx",
        ".safetensors",
        ".bin",
        ".dat",
    ]
)
"""Extensions of data that is binary by nature (a binary patch for it is no finding)."""
_COMPILED = frozenset(
    [
        ".pyc",
        ".pyo",
        ".so",
        ".dll",
        ".dylib",
        ".exe",
        ".jar",
        ".class",
        ".whl",
        ".egg",
        ".node",
        ".wasm",
        ".pkl",
        ".pickle",
    ]
)
_PTH_IMPORT = re.compile(r"^import[ \t]")
_CI = re.compile(
    r"(?:^|/)(?:\.github/workflows/[^/]+\.ya?ml|\.github/actions/.+/action\.ya?ml|"
    r"\.gitlab-ci\.ya?ml|\.gitlab/ci/[^/]+\.ya?ml|\.circleci/config\.ya?ml|"
    r"azure-pipelines\.ya?ml|bitbucket-pipelines\.ya?ml|\.travis\.ya?ml|\.drone\.ya?ml|"
    r"Jenkinsfile|\.buildkite/[^/]+|\.woodpecker/[^/]+|\.woodpecker\.ya?ml)$"
)
_NPM_SCRIPT = re.compile(r'^\s*"(?:preinstall|install|postinstall|prepare|prepublish)"\s*:')
_SCRIPT_VALUE = re.compile(r':\s*"((?:[^"\\]|\\.)*)"\s*,?\s*$')
_SHELL_SYNTAX = re.compile(r"[|&<>`$()\\]")
_SEPARATOR = re.compile(r"\s*(?:&&|\|\||;)\s*")
_BUILD_STEP = re.compile(
    r"prisma generate(?: --[\w-]+)*|husky(?: install)?(?: (?!/)[\w./-]+)?|patch-package|"
    r"tsc(?: -[\w-]+(?: [\w./-]+)?)*|node-gyp rebuild|ngcc|lefthook install|simple-git-hooks|"
    r"electron-builder install-app-deps|(?:npm|pnpm) run [\w:.-]+|yarn (?:run )?[\w:.-]+|true|"
    r"is-ci"
)
"""Install-time steps that run local build tools on the project's own files."""
_LIFECYCLE = re.compile(
    r'"(?:postCreateCommand|postStartCommand|postAttachCommand|initializeCommand|'
    r'onCreateCommand|updateContentCommand)"|"runOn"\s*:\s*"folderOpen"'
)


def is_ci_file(path: str) -> bool:
    """A CI workflow or pipeline definition (GitHub, GitLab, CircleCI, Azure, ...)."""
    return bool(_CI.search(path.replace("\\", "/")))


def is_real_path(path: str | None) -> bool:
    """A path the change writes (not ``<tool argument>`` text, not unnamed content)."""
    return bool(path) and not (path or "").startswith("<")


def _hit(sev: Severity, title: str, why: str, f: FileDiff, line: int | None = None) -> Hit:
    return Hit(
        severity=sev,
        title=title,
        description=f"{f.path}: {why}",
        suggestion="Have a human review this file: it runs without being called.",
        file=f.path,
        line=line,
    )


def _by_path(f: FileDiff, path: str, name: str) -> Hit | None:
    if re.search(r"(?:^|/)\.git/hooks/[^/]+$", path):
        why = "a git hook runs on every commit, checkout or push of this repository."
        return _hit(Severity.CRITICAL, "Git hook written", why, f)
    if re.search(r"(?:^|/)\.(?:husky|githooks)/[^/_][^/]*$", path):
        why = "a hook script the repository installs as a git hook runs on every commit."
        if local_hook_script("\n".join(ln.text for ln in f.added[:2_000])):
            why += " It runs only known local lint and test steps."
            return _hit(Severity.LOW, "Git hook script changed", why, f)
        return _hit(Severity.HIGH, "Git hook script changed", why, f)
    if path.endswith(".ssh/authorized_keys"):
        why = "a key added here grants a login to this account (persistence)."
        return _hit(Severity.CRITICAL, "SSH authorized_keys written", why, f)
    if name in ("sitecustomize.py", "usercustomize.py"):
        why = "Python runs this module at every interpreter start."
        return _hit(Severity.HIGH, "Python start-up module changed", why, f)
    if name == ".envrc":
        why = "direnv runs this file in the shell of whoever enters the folder."
        return _hit(Severity.HIGH, "direnv .envrc changed", why, f)
    if is_ci_file(path):
        why = (
            "a CI workflow runs with the repository's secrets on the events it names; its run "
            "steps and (for GitHub Actions and GitLab CI) its triggers, actions and rights are "
            "read, but not what the actions and images it calls do."
        )
        return _hit(Severity.MEDIUM, "CI workflow changed", why, f)
    if name == ".pre-commit-config.yaml":
        why = "pre-commit runs the hooks listed here on every commit."
        return _hit(Severity.MEDIUM, "pre-commit hooks changed", why, f)
    return None


def _by_content(f: FileDiff, name: str) -> Iterator[Hit]:
    if name.endswith(".pth"):
        code = [ln for ln in f.added if _PTH_IMPORT.match(ln.text)]
        for ln in code[:5]:
            why = (
                "a .pth line starting with `import` is Python that runs at every interpreter "
                f"start: {snippet(ln.text)}"
            )
            yield _hit(Severity.CRITICAL, "Code in a .pth file", why, f, ln.number)
        if not code:
            why = "a .pth file adds import paths at every interpreter start (module shadowing)."
            line = f.added[0].number if f.added else None
            yield _hit(Severity.HIGH, ".pth file changed", why, f, line)
        return
    pattern = _NPM_SCRIPT if name == "package.json" else None
    if name == "tasks.json" or name == "devcontainer.json":
        pattern = _LIFECYCLE
    if pattern is None:
        return
    for ln in [ln for ln in f.added if pattern.search(ln.text)][:5]:
        if pattern is _NPM_SCRIPT and is_build_step(ln.text):
            why = f"an install script that runs a known build step: {snippet(ln.text)}"
            yield _hit(Severity.LOW, "Install-time build step added", why, f, ln.number)
            continue
        why = f"a command that runs by itself on install or on open: {snippet(ln.text)}"
        yield _hit(Severity.HIGH, "Install or open-time command added", why, f, ln.number)


def is_build_step(line: str) -> bool:
    """Whether a ``package.json`` script line runs only known local build steps (``prisma
    generate``, ``husky install``, ``npm run build`` …): each command of it, split on ``&&``,
    ``||`` and ``;``, with no pipe, redirection, substitution or variable anywhere."""
    value = _SCRIPT_VALUE.search(line)
    if value is None:
        return False
    commands = [" ".join(c.split()) for c in _SEPARATOR.split(value.group(1))]
    return all(c and not _SHELL_SYNTAX.search(c) and _BUILD_STEP.fullmatch(c) for c in commands)


def autoexec_files(ctx: CheckInput) -> Iterator[Hit]:
    """Files written by the change that run by themselves (see the module docstring)."""
    for f in ctx.files:
        if not is_real_path(f.path) or f.deleted:
            continue
        path = (f.path or "").replace("\\", "/")
        name = posixpath.basename(path)
        hit = _by_path(f, path, name)
        if hit is not None:
            yield hit
        yield from _by_content(f, name.lower())


def _extension(path: str) -> str:
    return posixpath.splitext(path.lower())[1]


def binary_patches(ctx: CheckInput) -> Iterator[Hit]:
    """Binary patches of text files (decoded when possible) and compiled code added."""
    for f in ctx.files:
        if not is_real_path(f.path) or f.deleted:
            continue
        path = f.path or ""
        ext = _extension(path)
        bp = f.binary_patch
        if ext in _COMPILED and (f.binary or bp is not None):
            why = "compiled code or a pickle runs when loaded, and no reviewer can read it."
            yield _hit(Severity.HIGH, "Compiled code added", why, f)
        elif bp is None or ext in BINARY_EXTENSIONS:
            continue
        elif bp.kind == "text":
            why = "a text file sent as a git binary patch (decoded and reviewed as text)."
            yield _hit(Severity.MEDIUM, "Text file sent as a binary patch", why, f)
        else:
            detail = {
                "delta": "a binary delta needs the old file to be decoded",
                "data": "its content is not UTF-8 text",
                "corrupt": f"it does not decode ({bp.problem})",
            }[bp.kind]
            why = f"a git binary patch writes this text file and {detail}: no check can read it."
            yield Hit(
                severity=Severity.CRITICAL,
                title="Unreadable binary patch of a text file",
                description=f"{path}: {why}",
                suggestion="Send the change as a text diff (git diff without --binary).",
                file=path,
            )
