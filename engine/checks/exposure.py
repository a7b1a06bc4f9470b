"""``exposure``: access granted to anyone, recovery cut, the package index widened and
typosquatted packages installed — read on the added lines of every file of a change (a
write or an edit is one) and in every argument of a tool call of any other kind (a SaaS call's
IAM bindings, an HTTP body, a shell command's JSON). The readings are ``exposure_text``'s and
``package_names``'; a lifecycle rule's ``days = 1`` is read with the lines around it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import urlsplit

from humangr.contracts import Severity, ToolKind

from .base import CheckInput, Hit
from .build_files import AddedText
from .diff import FileDiff
from .exposure_text import SCRATCH, TextRisk, text_risks
from .package_names import typosquats
from .source_effects import hitter
from .tools.grants_body import grants
from .tools.graphql_inputs import with_mutation_inputs
from .tools.protection_off import switched_protections
from .tools.safeguard_body import safeguards_off
from .tools.view import ToolView

__all__ = ["exposure"]

_FILE_KINDS = frozenset({ToolKind.FILE_WRITE, ToolKind.FILE_EDIT, ToolKind.CODE})
"""Kinds whose content is reviewed as the file it makes (read on its added lines here)."""
_SUGGESTION = "Let a person confirm who gets access, what is kept and where packages come from."
_DAYS = re.compile(r"^\s*(?:days|noncurrent_days|expiration_days)\s*=\s*(\d+)\s*$")
_BLOCK = re.compile(r"(?i)\b(?:expiration|noncurrent_version_expiration)\b")
_MAX_ARGUMENT_JSON = 200_000


def exposure(ctx: CheckInput) -> Iterator[Hit]:
    """The exposure findings of every added file and of the tool call's other arguments."""
    seen: set[str] = set()
    for file in ctx.files:
        if file.path and file.removed:
            yield from _ignore_dropped(file, file.path)
        if file.path and not file.deleted and file.added:
            for hit in _file_hits(file, file.path):
                seen.add(hit.title)
                yield hit
    view = ctx.tool
    if view is None or view.kind in _FILE_KINDS:
        return
    texts = [(None, view.name), *_argument_texts(view.call.arguments, view.strings())]
    if not view.read_by_own_checks:
        seen.add(_BROWSER_SECRET)  # the business readers judge these tools' variables
    for argument, text in texts:
        for _, title, why in (*text_risks(text), *typosquats(text)):
            if title not in seen:
                seen.add(title)
                yield Hit(Severity.HIGH, title, why, _SUGGESTION, argument=argument)
    args = with_mutation_inputs(view.call.arguments)  # a GraphQL mutation's settings too
    if _OFF_TITLE not in seen:
        for subject in switched_protections(view.name, _url_path(view), args):
            seen.add(_OFF_TITLE)
            yield _off_hit(subject, None)
    yield from _body_hits(view, seen, args)


_OFF_TITLE = "switches a protection off"
_BROWSER_SECRET = "ships a secret to every browser"


def _body_hits(view: ToolView, seen: set[str], args: Mapping[str, Any]) -> Iterator[Hit]:
    """Safeguards switched off and access handed out in a request's body or parameters."""
    method = (view.text("method", "http_method", "verb") or ("", "POST"))[1].upper()[:10]
    where = _url_path(view)
    if _OFF_TITLE not in seen:
        for subject in safeguards_off(view.name, where, method, args):
            yield _off_hit(subject, None)
    for title, why in grants(view.name, where, method, args):
        yield Hit(Severity.HIGH, title, why, _SUGGESTION)


def _off_hit(subject: str, argument: str | None) -> Hit:
    return Hit(
        Severity.HIGH,
        _OFF_TITLE,
        f"the call sets a safeguard to off ({subject}): checks, alerts or records it kept "
        "stop without anyone being told.",
        "Let a person confirm turning a safeguard off, and for how long.",
        argument=argument,
    )


def _url_path(view: ToolView) -> str:
    """The host and path of the call's address, which often name what it switches."""
    found = view.text("url", "endpoint", "uri", "path")
    if found is None:
        return ""
    try:
        parts = urlsplit(found[1])
        return f"{parts.hostname or ''} {parts.path[:500]}"
    except ValueError:
        return ""


def _argument_texts(
    arguments: Mapping[str, object], strings: Iterator[tuple[str, str]]
) -> Iterator[tuple[str | None, str]]:
    """Every string argument, and each object or list argument as JSON (so a policy passed as
    an object reads as the document it is)."""
    yield from strings
    program = next(
        (v for k, v in arguments.items() if k.lower() in ("command", "cmd", "program")), None
    )
    for key, value in arguments.items():
        if isinstance(value, dict | list):
            text = json.dumps(value, ensure_ascii=False, default=str)
            yield key, text[:_MAX_ARGUMENT_JSON]
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value[:256]):
            words = [str(v) for v in value[:256]]
            if isinstance(program, str) and " " not in program.strip():
                words.insert(0, program)  # ``{"command": "wp", "args": [...]}``: one command
            yield key, " ".join(words)[:_MAX_ARGUMENT_JSON]


_SECRET_IGNORES = re.compile(
    r"(?i)^\s*!?/?\**/?(?:\.env\b[\w.*-]*|\*?\.(?:pem|key|p8|p12|pfx|jks|keystore|tfstate\w*|tfvars)"
    r"|id_rsa\w*|id_ed25519\w*|\.npmrc|\.pypirc|\.netrc|[\w*-]*credentials?[\w*.-]*|"
    r"[\w*-]*secrets?[\w*./-]*|service[-_]?account[\w*.-]*)\s*$"
)


def _ignore_dropped(file: FileDiff, path: str) -> Iterator[Hit]:
    """A ``.gitignore`` that stops ignoring secret files (``.env``, keys, credentials)."""
    if path.rsplit("/", 1)[-1] != ".gitignore":
        return
    added = {line.text.strip() for line in file.added}
    dropped = [
        line.text.strip()
        for line in file.removed[:2_000]
        if _SECRET_IGNORES.match(line.text) and line.text.strip() not in added
    ]
    if dropped:
        yield Hit(
            Severity.HIGH,
            "stops ignoring secret files",
            f"`{', '.join(dropped[:4])[:120]}` no longer ignored: the next `git add .` commits "
            "the keys and environment files it kept out.",
            "Keep secret files ignored.",
            file=path,
            line=file.added[0].number if file.added else None,
        )


_NON_BLOCKING = re.compile(
    r"^\s*(?:continue-on-error|allow_failure|allowFailure|soft_fail)\s*:\s*true\b|\|\|\s*true\s*$"
)
_SECURITY_STEP = re.compile(
    r"(?i)\b(?:security|scan\w*|audit|trufflehog|gitleaks|snyk|codeql|semgrep|trivy|bandit|"
    r"secrets?|sast|dast|dependency-check|grype|checkov|tfsec|zap|osv-scanner)\b"
)


def _made_optional(file: FileDiff, path: str) -> Iterator[Hit]:
    """A CI step of a security scan made non-blocking (``continue-on-error: true`` added to it,
    ``|| true`` after it)."""
    if not _CI_PATH.search(path):
        return
    for hunk in file.hunks:
        lines = hunk.lines
        for i, line in enumerate(lines[:5_000]):
            if line.kind != "+" or not _NON_BLOCKING.search(line.text):
                continue
            near = " ".join(x.text for x in lines[max(0, i - 6) : i + 4] if x.kind != "-")
            if _SECURITY_STEP.search(near):
                yield Hit(
                    Severity.HIGH,
                    "makes a security check non-blocking",
                    "the scan still runs but its failure no longer stops the pipeline: leaked "
                    f"secrets and known flaws ship. Line: `{line.text.strip()[:120]}`",
                    "Keep security checks blocking; fix or triage what they find.",
                    file=path,
                    line=line.new,
                )
                return


_CI_PATH = re.compile(
    r"(?i)(?:^|/)(?:\.github/workflows/|\.gitlab-ci|\.gitlab/|\.circleci/|azure-pipelines|"
    r"bitbucket-pipelines|\.buildkite/|jenkinsfile|\.drone|cloudbuild|buildspec)"
)


def _file_hits(file: FileDiff, path: str) -> Iterator[Hit]:
    t = AddedText(file)
    hit = hitter(t, path)
    risks: list[TextRisk] = [*text_risks(t.text), *typosquats(t.text, path)]
    titles = {title for _, title, _ in risks}
    for offset, title, why in risks:
        yield hit(Severity.HIGH, title, offset, why)
    if "expires stored objects within days" not in titles:
        yield from _short_expiry(file, path)
    yield from _made_optional(file, path)


def _short_expiry(file: FileDiff, path: str) -> Iterator[Hit]:
    """An added ``days = 1`` inside an ``expiration { … }`` block the edit left as it was."""
    for hunk in file.hunks:
        lines = hunk.lines
        for i, line in enumerate(lines):
            m = _DAYS.match(line.text)
            if line.kind != "+" or m is None or int(m.group(1)) > 7:
                continue
            around = [before.text for before in lines[max(0, i - 12) : i]]
            if any(_BLOCK.search(t) for t in around[-4:]) and not any(
                SCRATCH.search(t) for t in around
            ):
                yield Hit(
                    Severity.HIGH,
                    "expires stored objects within days",
                    "a lifecycle rule this short deletes backups, logs or exports before "
                    f"anyone could need them. Line: `{line.text.strip()[:120]}`",
                    _SUGGESTION,
                    file=path,
                    line=line.new,
                )
                return
