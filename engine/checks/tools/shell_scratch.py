"""Folders whose contents are disposable: a CI runner's job workspace (GitHub Actions'
``/home/runner/work/<repo>/…``, Jenkins' ``…/workspace/<job>``, GitLab's ``/builds/…``,
Buildkite's ``…/builds/<agent>/…``), temporary folders, and a checkout named as scratch
(``…/lint-tmp``, ``…/scratch/…``, ``…/throwaway-clone``). Cleaning inside one (``git clean
-fdx``, ``rm -rf build``) loses nothing anyone keeps; the job folder itself is the unit, not
the runner's root (``/var/lib/jenkins/workspace`` alone is every job)."""

from __future__ import annotations

import posixpath
import re

__all__ = ["ci_workspace", "throwaway"]

_CI_JOB = re.compile(
    r"^/(?:home/runner/work|runner/_work|opt/actions-runner/_work|actions-runner/_work|"
    r"home/[\w.-]+/actions-runner/_work|github/workspace|"
    r"var/lib/jenkins/workspace|var/jenkins_home/workspace|home/jenkins/(?:agent/)?workspace|"
    r"builds|home/gitlab-runner/builds|var/lib/buildkite-agent/builds|buildkite/builds|"
    r"bitbucket/pipelines/agent/build|drone/src)/[^/]+(?:/.*)?$"
)
_TEMP = re.compile(r"^/(?:tmp|var/tmp|private/tmp|scratch)/[^/]+")
_SCRATCH_NAME = re.compile(
    r"(?i)(?:^|/)(?:[\w.-]*[-_.](?:tmp|temp|scratch|throwaway)|(?:tmp|temp|scratch|throwaway)"
    r"(?:[-_.][\w.-]*)?)(?:/|$)"
)


def _normal(path: str) -> str:
    p = path.strip().strip("'\"")
    return posixpath.normpath(p) if p.startswith("/") else p


def ci_workspace(path: str) -> bool:
    """Whether ``path`` is inside one job's workspace on a CI runner."""
    return bool(_CI_JOB.match(_normal(path)))


def throwaway(path: str | None) -> bool:
    """Whether ``path`` (an absolute folder) is disposable: a CI job's workspace, a temporary
    folder or a checkout named as scratch."""
    if not path or not path.startswith("/"):
        return False
    p = _normal(path)
    return ci_workspace(p) or bool(_TEMP.match(p)) or bool(_SCRATCH_NAME.search(p))
