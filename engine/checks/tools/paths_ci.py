"""A CI workflow written that only builds and tests: what it holds runs in CI with the
repository's secrets, so a workflow is a protected path (``paths_repo``) — unless its text
gives it nothing to reach them with. A workflow that names no secret, asks for no write
permission or cloud identity, runs on no privileged trigger or self-hosted runner and deploys
nothing is a build; its steps are read by the CI workflow checks like any other file's."""

from __future__ import annotations

import re

from .edit_formats import NEW_KEYS
from .paths_ci_test_values import without_test_values
from .view import ToolView

__all__ = ["CI_WORKFLOW", "quiet_workflow"]

CI_WORKFLOW = "a CI workflow"
"""The catalogue's name for the path (``Verdict.title`` ends with it)."""
_CONTENT = ("content", "contents", "new_string", "new_str", "text", "file_text")
_REACHES = re.compile(
    r"(?i)\bsecrets\.|\$\{\{\s*secrets|\bsecrets:\s*inherit|write-all|"
    r"\b(?:contents|packages|id-token|deployments|actions|pages|repository-projects)\s*:\s*write\b|"
    r"pull_request_target|workflow_run|self-hosted|\benvironment:|\bdeploy|\brelease|\bpublish|"
    r"\bkubectl\b|\bhelm\b|terraform\s+apply|\baws\s|\bgcloud\b|\baz\s|\bdocker\s+push|"
    r"\bnpm\s+publish|\btwine\b|\bssh\b|\bscp\b|\bcurl\b|\bwget\b|\$CI_JOB_TOKEN|"
    r"\bcredentials\b|\btoken\b|\bpassword\b|\bvault\b"
)
"""What lets a workflow reach beyond building and testing: secrets, write permissions, cloud
identity, privileged triggers, self-hosted runners, deploys, publishing, downloads."""
_MAX = 20_000


def quiet_workflow(view: ToolView) -> bool:
    """Whether the workflow text ``view`` writes only builds and tests (see the module)."""
    got = view.text(*_CONTENT, *NEW_KEYS)
    if got is None:
        return False
    text = got[1]
    return len(text) <= _MAX and _REACHES.search(without_test_values(text)) is None
