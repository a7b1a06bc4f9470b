"""What reaches everyone who installs, pulls or builds from a shared place, and safety work
stopped, read from a business tool's name words and its argument pairs (for ``business``),
each high:

- a published version removed from a registry (``unpublish``, ``yank``), a registered model
  deleted with all its versions, a shared image tag (``latest``, ``stable``, ``prod``)
  overwritten;
- ownership of a package, repository or organisation given to an account;
- a release published (not a draft), a deployment promoted to production, a run that
  rebuilds production from nothing (``full_refresh`` on a production target);
- a shared branch deleted (``main``, ``develop``, ``release/…``);
- a security alert dismissed (Dependabot, code or secret scanning, a cloud detector's
  finding);
- a job that keeps data safe paused or switched off (a retention purge, a backup, an audit
  export, an erasure job).

A draft release, a version of a model deleted, a feature branch deleted, an image pushed under
its own version tag and an ordinary job paused are everyday.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .business_feeds import texts
from .business_words import DELETE_VERBS, Finding, Pair, acts, switched_off

__all__ = ["shared_places"]

_UNPUBLISH = frozenset({"unpublish", "yank", "unlist"})
_MODELS = frozenset({"model", "models", "registered"})
_VERSION_KEYS = re.compile(r"^(?:version|version_?id|version_?number|stage|alias)$")
_PUSH = frozenset({"push", "tag", "retag", "publish", "copy"})
_IMAGES = frozenset({"image", "images", "docker", "dockerhub", "container", "ecr", "gcr", "ghcr"})
_SHARED_TAG = re.compile(r"(?i)^(?:latest|stable|prod|production|live|release|main|master)$")
_TAG_KEYS = re.compile(r"^(?:tag|tags|target_?tag|dest\w*_?tag|image_?tag)$")
_OWNERS = frozenset({"owner", "owners", "maintainer", "maintainers", "ownership"})
_GIVES = frozenset({"add", "invite", "grant", "transfer", "set", "assign", "create"})
_SHARED_THINGS = frozenset(
    {"npm", "pypi", "crate", "crates", "gem", "rubygems", "package", "packages", "nuget",
     "maven", "registry", "org", "organization", "repo", "repository", "team", "project",
     "dockerhub", "huggingface", "hub"}
)  # fmt: skip
_RELEASES = frozenset({"release", "releases"})
_PROMOTES = frozenset({"promote", "promotion"})
_DEPLOYS = frozenset({"deployment", "deployments", "deploy", "build", "builds", "release"})
_WHERE = re.compile(r"^(?:env|environment|stage|target|tier|alias|to)$")
_NOT_LIVE = re.compile(r"(?i)^(?:dev\w*|test\w*|qa|staging|stage|preview|sandbox|uat|canary)$")
_LIVE = re.compile(r"(?i)(?:^|[-_.])(?:prod|production|prd|live)(?:$|[-_.\d])")
_REBUILDS = re.compile(
    r"^(?:full_?refresh|drop_?existing|recreate|force_?recreate|overwrite|replace|truncate|"
    r"reset|wipe|rebuild)$"
)
_BRANCH_KEYS = re.compile(r"^(?:branch|branch_?name|ref|name)$")
_SHARED_BRANCH = re.compile(
    r"(?i)^(?:refs/heads/)?(?:main|master|trunk|develop|development|dev|production|prod|"
    r"stable|staging|gh-pages|releases?(?:[/_-][\w./-]{0,60})?|hotfix(?:es)?/[\w./-]{0,60}|"
    r"v?\d+\.(?:\d+|x)(?:\.x)?)$"
)
_DISMISS = frozenset({"dismiss", "suppress", "ignore", "close", "resolve", "archive", "snooze"})
_ALERTS = frozenset(
    {"alert", "alerts", "finding", "findings", "vulnerability", "vulnerabilities", "advisory",
     "advisories", "issue", "issues"}
)  # fmt: skip
_SECURITY = frozenset(
    {"dependabot", "security", "scanning", "secret", "code", "vulnerability",
     "vulnerabilities", "cve", "guardduty", "securityhub", "snyk", "advisory", "advisories",
     "sast", "defender", "finding", "findings"}
)  # fmt: skip
_PAUSES = frozenset({"pause", "disable", "suspend", "stop", "unschedule", "deactivate"})
_JOBS = frozenset(
    {"dag", "dags", "job", "jobs", "schedule", "schedules", "workflow", "workflows", "pipeline",
     "pipelines", "cron", "task", "tasks", "rule", "rules", "lifecycle", "policy", "trigger"}
)  # fmt: skip
_SAFE_WORK = re.compile(
    r"(?i)(?:^|[^a-z])(?:retention|purge|backups?|audit\w*|gdpr|ccpa|erasure|deletion|"
    r"dsar|compliance|snapshots?|dlp|anonymi[sz]\w*|redact\w*|scrub\w*|expir\w*)(?:$|[^a-z])"
)
_JOB_KEYS = re.compile(r"^(?:\w*_?id|name|job\w*|dag\w*|workflow\w*|pipeline\w*|schedule\w*)$")
_PAUSED_KEYS = frozenset({"is_paused", "paused", "suspended", "disabled"})


def _registry(words: set[str], pairs: Sequence[Pair]) -> Finding | None:
    if words & _UNPUBLISH:
        return (
            "removes a published version",
            "everyone who installs that version breaks, and the registry may never let it be "
            "published again.",
            "Deprecate the version instead, or let the package's owner unpublish it.",
        )
    if (
        words & DELETE_VERBS
        and words & _MODELS
        and words & {"registered", "registry"}
        and not any(_VERSION_KEYS.match(k) for k, _ in pairs)
    ):
        return (
            "deletes a registered model",
            "the model goes with every version and stage: what serves or scores with it "
            "breaks, and its history is lost.",
            "Archive the model, or delete one version; let its owner delete the whole.",
        )
    if words & _PUSH and words & _IMAGES:
        tag = next((t for k, v in pairs if _TAG_KEYS.match(k) for t in texts(v)), None)
        if tag is not None and _SHARED_TAG.match(tag.strip()):
            return (
                f"overwrites the shared `{tag.strip()[:20]}` tag",
                "whatever pulls the tag — production, other teams — runs the new build next.",
                "Push under the build's own version tag; let a release move the shared one.",
            )
    if words & _OWNERS and words & _GIVES and words & _SHARED_THINGS:
        return (
            "gives ownership to an account",
            "an owner can publish, delete and hand on what they own: one account is enough "
            "for a supply-chain attack.",
            "Let the current owners add an owner.",
        )
    return None


def _goes_live(words: set[str], pairs: Sequence[Pair]) -> Finding | None:
    where = [t.strip() for k, v in pairs if _WHERE.match(k) for t in texts(v)]
    if words & _RELEASES and words & {"create", "publish", "new"} and "draft" not in words:
        draft = any(k in ("draft", "prerelease") and v is True for k, v in pairs)
        if not draft and any(k == "draft" and v is False for k, v in pairs):
            return (
                "publishes a release",
                "a published release is announced to everyone watching and starts the "
                "workflows that ship it.",
                "Create a draft; let a person publish it.",
            )
    if words & _PROMOTES and words & _DEPLOYS and not any(_NOT_LIVE.match(w) for w in where):
        return (
            "promotes a deployment to production",
            "what was a preview serves every user from now on.",
            "Let a person confirm what goes to production.",
        )
    rebuild = next((k for k, v in pairs if _REBUILDS.match(k) and v is True), None)
    if rebuild is not None and any(_LIVE.search(w) for w in where):
        return (
            "rebuilds production from nothing",
            f"`{rebuild}` drops what production holds and builds it again: its history may "
            "not come back, and readers see it empty meanwhile.",
            "Run it on a copy first; let a person confirm on production.",
        )
    return None


def _branch(words: set[str], pairs: Sequence[Pair]) -> Finding | None:
    if not (words & DELETE_VERBS and words & {"branch", "branches", "ref", "refs"}):
        return None
    shared = next(
        (t for k, v in pairs if _BRANCH_KEYS.match(k) for t in texts(v) if _SHARED_BRANCH.match(t)),
        None,
    )
    if shared is None:
        return None
    return (
        "deletes a shared branch",
        f"`{shared[:60]}` is what others build and release from; work based on it is cut off.",
        "Delete feature branches only; let the repository's owners retire a shared one.",
    )


def _alert(words: set[str], pairs: Sequence[Pair]) -> Finding | None:
    if not (words & _DISMISS and words & _ALERTS and words & _SECURITY):
        return None
    if words & {"issue", "issues"} and not words & (_SECURITY - {"code", "secret"}):
        return None  # a ticket closed
    return (
        "dismisses a security alert",
        "the vulnerability stays; nobody is told about it again.",
        "Fix it, or let the security team dismiss it with their reason.",
    )


def _paused(words: set[str], pairs: Sequence[Pair]) -> Finding | None:
    stops = bool(words & _PAUSES) or any(
        (k in _PAUSED_KEYS and v is True) or (k in ("enabled", "active") and switched_off(v))
        for k, v in pairs
    )
    if not (stops and words & _JOBS):
        return None
    job = next(
        (t for k, v in pairs if _JOB_KEYS.match(k) for t in texts(v) if _SAFE_WORK.search(t[:200])),
        None,
    )
    if job is None:
        return None
    return (
        "stops a job that keeps data safe",
        f"`{job[:60]}` deletes, backs up or records data on a schedule; paused, data is kept "
        "past its date or goes unprotected.",
        "Let the data's owner pause retention, backup and audit jobs.",
    )


def shared_places(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """Each way above (at most one finding)."""
    if not acts(words):
        return
    for reader in (_registry, _goes_live, _branch, _alert, _paused):
        found = reader(words, pairs)
        if found is not None:
            yield found
            return
