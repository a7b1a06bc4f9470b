"""What no local check reads, for a review without an LLM.

The local checks read Python (syntax trees, taint), shell (scripts, Dockerfiles, Makefiles,
CI steps), the triggers, actions and rights of GitHub Actions and GitLab CI files
(``ci_workflow``: one it cannot read stays "not reviewed", with the reason), source files in
the common other languages and SQL files for what they can do to a machine (``source_code``:
the commands they start, shells, evaluated payloads, data sent out), host and server
configuration (``config_files``: units, crontabs, web servers, Terraform), tool-call
arguments, and the lines of prose and data files (secrets, personal data, injection text).
Anything else an action brings — a notebook, a binary, an extensionless file that is no shell
script, lines outside a diff's structure, or only a description — is read by nothing but an
LLM. When no LLM reviews the action, each is a finding "not reviewed by any local check"
(high: the action needs a human at least), so nothing unreviewed passes as reviewed.
``run_checks(..., local_only=True)`` adds them.
"""

from __future__ import annotations

import posixpath
import re

from humangr.contracts import Severity

from .autoexec import BINARY_EXTENSIONS, is_ci_file
from .base import CheckInput, Hit
from .ci_workflow import unread
from .config_files import config_kind
from .coverage_configs import plain_config
from .coverage_links import LINK_ATTRIBUTE, own_links_only
from .coverage_styles import STYLE_EXTENSIONS, plain_style
from .diff import MESSAGE_PATH, FileDiff
from .languages import MIGRATION_EXTENSIONS, other_code
from .tools.shell_files import script_units

__all__ = ["NOT_REVIEWED", "READ_EXTENSIONS", "READ_NAMES", "not_reviewed"]

NOT_REVIEWED = "Not reviewed by any local check"
READ_EXTENSIONS = frozenset(
    [
        ".md",
        ".markdown",
        ".rst",
        ".txt",
        ".adoc",
        ".csv",
        ".tsv",
        ".json",
        ".yaml",
        ".yml",
        ".toml",
        ".ini",
        ".cfg",
        ".conf",
        ".env",
        ".lock",
        ".properties",
        ".gitignore",
        ".gitattributes",
        ".dockerignore",
        ".editorconfig",
    ]
)
"""Prose and data: their lines are all there is to read (secrets, personal data, text)."""
_TEMPLATES = frozenset(
    {".html", ".htm", ".liquid", ".hbs", ".handlebars", ".mustache", ".j2", ".jinja",
     ".jinja2", ".njk", ".twig", ".tmpl", ".tpl"}
)  # fmt: skip
"""Page and mail templates: their text is read like prose, unless it adds something active."""
_ACTIVE = re.compile(
    r"(?i)<\s*(?:script|iframe|object|embed|form|link|base|img|svg)\b|javascript:|"
    r"<\s*meta\b(?!\s+charset\s*=\s*[\"']?[\w-]{1,20}[\"']?\s*/?>)"
    r"(?!\s+name\s*=\s*[\"'](?:viewport|description|author|keywords|color-scheme|theme-color)"
    r"[\"']\s+content\s*=\s*\"[^\"<>]{0,200}\"\s*/?>)|"
    r"\bon[a-z]+\s*=|\|\s*safe\b|\{\{\{|\{%-?\s*(?:raw|include|import)|"
    r"<%|\{!!"
)
"""What makes a template's added line more than text: scripts, handlers, raw output (links:
``coverage_links``); a ``<meta>`` tag but the page's character set or a plain viewport,
description or author line (``http-equiv`` can redirect the page or loosen its policy)."""
READ_NAMES = frozenset(
    [
        "readme",
        "license",
        "licence",
        "copying",
        "authors",
        "changelog",
        "changes",
        "notice",
        "contributors",
        "codeowners",
        "manifest.in",
        ".gitignore",
        ".gitattributes",
        ".dockerignore",
        ".editorconfig",
        ".env",
        "requirements.txt",
    ]
)
_MAX_HITS = 20
_CI_UNREAD = "a CI workflow: only its run steps are read, not its triggers, actions or rights"
_SUGGESTION = (
    "Have a human review it, or review with an LLM configured (humangr review --llm ..., "
    "a layer worker with --llm)."
)


def _ext(path: str) -> str:
    return posixpath.splitext(posixpath.basename(path.replace("\\", "/")).lower())[1]


def _argument_text(path: str) -> bool:
    """``<bash command>``: the pseudo file of a tool argument's text (git's commit message,
    named alike, is not one)."""
    return path.startswith("<") and path.endswith(">") and path != MESSAGE_PATH


_NUMBER = re.compile(r"\d+(?:\.\d+){0,5}")
_ADDRESS = re.compile(r"\d+\.\d+\.\d+\.\d+|://|@")
_DIGEST = re.compile(r"@sha256:[0-9a-f]{64}(?![0-9a-f])")
"""An image pinned by its content digest (``python:3.12-slim@sha256:…``): the same image."""
_MAX_BUMP_LINES = 8


def _version_bump(f: FileDiff) -> bool:
    """Whether the change only moves version numbers or pins them: as many lines added as
    removed, each the same as the one it replaces once its version numbers (``3.11`` or
    ``3.11.9``) and an image's content digest are set aside."""
    added, removed = f.added, f.removed
    if not added or len(added) != len(removed) or len(added) > _MAX_BUMP_LINES:
        return False
    new_texts = [_DIGEST.sub("", line.text) for line in added]
    if any(_ADDRESS.search(text) for text in new_texts):
        return False  # an address moved is not a version
    return all(
        _NUMBER.sub("0", new) == _NUMBER.sub("0", _DIGEST.sub("", old.text))
        for new, old in zip(new_texts, removed, strict=True)
    )


def _why(ctx: CheckInput, f: FileDiff) -> str | None:
    """Why no local check reads ``f``'s new content, or None when one does."""
    path = f.path or ""
    if f.deleted:
        return None
    moved_from = f.old_path if f.old_path and f.old_path != path else None
    if not (f.added or f.binary):
        if moved_from and _ext(moved_from) != _ext(path):
            return f"renamed or copied from {moved_from}: content not in the diff changes type"
        return None
    if _version_bump(f):
        return None  # ``node-version: 18`` → ``20``: nothing but a version changes
    if f.binary:
        what = (
            "binary content"
            if f.binary_patch is None
            else f"a binary patch ({f.binary_patch.kind})"
        )
        return f"{what}: no local check reads it"
    if is_ci_file(path):
        why = unread(f)
        if why is None:
            return None  # its run steps read as shell, the rest by ``ci-workflow``
        if why == "" and script_units(f):
            return None  # a pipeline ``ci-workflow`` does not read (a Jenkinsfile): its steps
        detail = f" ({why})" if why else ""
        return f"{_CI_UNREAD}{detail}"
    if _argument_text(path) and not f.stray:
        return None  # a tool argument's text: read by the tool checks (see below)
    if ctx.python(f) is not None or script_units(f):
        return None
    if f.stray:
        return "lines outside the diff's files and hunks that are neither Python nor shell"
    if path == MESSAGE_PATH:
        return "git's commit message before the diff: text no local check reads as an action"
    name = posixpath.basename(path.replace("\\", "/")).lower()
    ext = posixpath.splitext(name)[1]
    if path.startswith("<"):
        # A tool argument's text is read by the tool checks; code it runs (``<tool code>.js``)
        # by its language: Python by the code checks, shell by the tool-shell check.
        if path.endswith(">"):
            return None
        ext = _ext(path)
        return None if ext in (".py", ".sh") else f"{ext} code to run: no local check reads it"
    if not path:
        return "unnamed content that is neither Python nor a shell script"
    if config_kind(path) is not None:
        return None  # read by ``config_files`` (units, crontabs, web servers, Terraform)
    if plain_config(path, [ln.text for ln in f.added], [ln.text for ln in f.removed]):
        return None  # an SSH setting made safer, a plain log rotation: read whole
    if ext in _TEMPLATES and not any(
        _ACTIVE.search(line.text)
        or (LINK_ATTRIBUTE.search(line.text) and not own_links_only(line.text))
        for line in f.added[:5_000]
    ):
        return None  # a template's text and values: no script, handler or link added
    if ext in STYLE_EXTENSIONS and plain_style([line.text for line in f.added]):
        return None  # colours, sizes and layout: no request out, no code
    if ext in READ_EXTENSIONS or name in READ_NAMES or name.startswith(".env."):
        return None  # prose and data; dotenv variants (``.env.example``) are data too
    if other_code(path) is not None or ext in MIGRATION_EXTENSIONS:
        return None  # read by ``source-code`` (and the commands it starts by ``shell-script``)
    if ext in BINARY_EXTENSIONS:
        return f"{ext} data: no local check reads it"
    return f"{'a ' + ext if ext else 'an extensionless'} file: no local check reads this file type"


def not_reviewed(ctx: CheckInput) -> list[Hit]:
    """One high hit per part of the action no local check reads (none when all are read)."""
    action = ctx.action
    if not (action.code_diff or "").strip() and action.tool_call is None:
        return [
            Hit(
                severity=Severity.HIGH,
                title=NOT_REVIEWED,
                description="The action is a description only: no local check can judge what "
                "it will do, and no LLM reviews it.",
                suggestion=_SUGGESTION,
            )
        ]
    hits: list[Hit] = []
    for f in ctx.files:
        why = _why(ctx, f)
        if why is None:
            continue
        hits.append(
            Hit(
                severity=Severity.HIGH,
                title=NOT_REVIEWED,
                description=f"{f.path or 'the content'}: {why}, and no LLM reviews it.",
                suggestion=_SUGGESTION,
                file=f.path if f.path and f.path != MESSAGE_PATH else None,
                line=f.added[0].number if f.stray and f.added else None,
            )
        )
        if len(hits) >= _MAX_HITS:
            break
    return hits
