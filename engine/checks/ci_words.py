"""The words ``ci_workflow`` reads CI files with: which files, the keys GitHub Actions and GitLab
CI know, the triggers that run with the repository's secrets while outsiders cause them, the
expressions that hold outsiders' text or a pull request's own code, the owners whose actions
are trusted on a branch, and what a throwaway service's credentials look like. Data only."""

from __future__ import annotations

import re

from .tools.shell_catalogue import words

__all__ = [
    "ACTION_KEYS",
    "ACTION_REF",
    "BRANCHES",
    "FETCH",
    "GATE",
    "GITHUB",
    "GITHUB_FILE",
    "GITLAB",
    "GITLAB_FILE",
    "HEAD",
    "JOB_KEYS",
    "KNOWN",
    "LOCAL_CREDENTIALS",
    "OUTSIDERS",
    "PRIVILEGED",
    "PRIVILEGED_WORD",
    "PULL_REQUESTS",
    "REUSABLE",
    "SAFE_PLACES",
    "SERVICE_PASSWORD",
    "STEP_KEYS",
    "TRUSTED_OWNERS",
    "UNTRUSTED",
    "WORKFLOW_KEYS",
]

GITHUB, GITLAB = "GitHub Actions", "GitLab CI"
GITHUB_FILE = re.compile(r"(?:^|/)\.github/(?:workflows/[^/]+|actions/.+/action)\.ya?ml$")
GITLAB_FILE = re.compile(r"(?:^|/)(?:\.gitlab-ci|\.gitlab/ci/[^/]+)\.ya?ml$")
PRIVILEGED = frozenset({"pull_request_target", "workflow_run", "issue_comment"})
"""Triggers whose runs have the base repository's secrets and a write token while a pull
request's author can cause them."""
WORKFLOW_KEYS = words(
    """
    name run-name on permissions env defaults concurrency jobs
    """
)
ACTION_KEYS = words(
    """
    name author description inputs outputs runs branding
    """
)
JOB_KEYS = words(
    """
    name permissions needs if runs-on environment concurrency outputs env defaults steps
    timeout-minutes strategy continue-on-error container services uses with secrets
    """
)
STEP_KEYS = words(
    """
    id if name uses run working-directory shell with env continue-on-error timeout-minutes
    """
)
ACTION_REF = re.compile(r"^(?:\./\S*|docker://\S+|[\w.-]+/[\w.-]+(?:/[^@\s]+)?@[^@\s]+)$")
REUSABLE = re.compile(
    r"^(?:\./\.github/workflows/[^@\s]+\.ya?ml|[\w.-]+/[\w.-]+/\.github/workflows/[^@\s]+"
    r"\.ya?ml@[^@\s]+)$"
)
SAFE_PLACES = words(
    """
    env with if name run-name outputs environment concurrency description value
    """
)
"""Where an expression is data, not script (a fragment's line must show one, or a script)."""
KNOWN = {
    GITHUB: WORKFLOW_KEYS
    | JOB_KEYS
    | STEP_KEYS
    | ACTION_KEYS
    | words(
        """
        push pull_request pull_request_target pull_request_review pull_request_review_comment
        workflow_run workflow_dispatch workflow_call repository_dispatch schedule merge_group
        issues issue_comment discussion discussion_comment release create delete deployment
        deployment_status fork gollum label milestone page_build public registry_package
        status watch check_run check_suite branch_protection_rule types branches
        branches-ignore tags tags-ignore paths paths-ignore workflows inputs cron group
        cancel-in-progress matrix include exclude fail-fast max-parallel image ports options
        volumes credentials using main pre post description required default type value url
        """
    ),
    GITLAB: words(
        """
        script before_script after_script variables rules include stages stage image services
        cache artifacts only except needs when tags environment extends trigger default
        workflow dependencies parallel interruptible retry timeout allow_failure coverage
        release resource_group secrets id_tokens pages inherit hooks spec inputs local remote
        template project file ref if changes exists paths key name url reports expire_in
        policy untracked entrypoint alias command matrix
        """
    ),
}
"""Keys a hunk's added line must sit under for its place to be known."""
SERVICE_PASSWORD = re.compile(
    r"^\s*(?:-\s+)?(?:POSTGRES|PG|MYSQL|MARIADB|MONGO_INITDB_ROOT|RABBITMQ_DEFAULT|MSSQL_SA|SA|"
    r"REDIS|MINIO_ROOT|KEYCLOAK_ADMIN|ELASTIC)_\w{0,20}?(?:PASSWORD|PASS)\s*:"
)
LOCAL_CREDENTIALS = re.compile(
    r"://[^\s/:@]{1,100}:[^\s/@]{1,200}@(?:localhost|[\w-]{1,63})(?![\w.-])"
)
"""Credentials of a URL to ``localhost`` or a one-label host: a service container's."""
PRIVILEGED_WORD = re.compile(r"\b(?:pull_request_target|workflow_run|issue_comment)\b")
UNTRUSTED = re.compile(
    r"github\.head_ref|github\.event\.(?:(?:issue|pull_request|discussion)\.(?:title|body)|"
    r"(?:comment|review|review_comment)\.body|pull_request\.head\.(?:ref|label|repo\."
    r"default_branch)|pages\.[\w*]{1,9}\.page_name|(?:commits\.[\w*]{1,9}\.|head_commit\.)"
    r"(?:message|author\.(?:email|name))|workflow_run\.(?:head_branch|display_title|head_commit"
    r"\.(?:message|author\.(?:email|name))|pull_requests\.[\w*]{1,9}\.head\.ref))|"
    r"tojson\(github(?:\.event(?:\.\w{1,40})?)?\)"
)
"""Context paths holding text anyone can write (GitHub Security Lab's list)."""
HEAD = re.compile(
    r"pull_request\.head\.(?:sha|ref|repo\.full_name|repo\.clone_url)|github\.head_ref|"
    r"pull_request\.merge_commit_sha|workflow_run\.(?:head_sha|head_branch|head_repository)|"
    r"refs/pull/|\bpull/[^\s/]{1,100}/(?:head|merge)\b"
)
"""A pull request's own code: its head commit, branch or repository."""


TRUSTED_OWNERS = words(
    """
    actions github docker aws-actions azure google-github-actions hashicorp microsoft pypa
    gradle
    """
)
OUTSIDERS = PRIVILEGED | {"issues", "discussion", "discussion_comment", "fork", "watch"}
PULL_REQUESTS = words(
    """
    pull_request pull_request_target pull_request_review pull_request_review_comment
    """
)
BRANCHES = words(
    """
    main master dev develop development trunk head latest nightly next canary edge unstable
    default
    """
)
FETCH = re.compile(r"\bgit\s+(?:-\S+\s+){0,4}(?:fetch|checkout|switch|pull|clone|worktree|reset)\b")
GATE = re.compile(
    r"author_association|labels|github\.actor|triggering_actor|head\.repo\.full_name|"
    r"head_repository|workflow_run\.event|\.fork\b"
)
