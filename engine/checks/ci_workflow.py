"""``ci-workflow``: what a CI workflow does besides its run steps (``shell-script`` reads those
as shell) — its triggers, the actions it runs, its token's rights and where its secrets go.

GitHub Actions (workflows and composite actions):

- a pull request's code checked out or fetched (``ref: ${{ github.event.pull_request.head.sha
  }}``, ``refs/pull/…``, ``gh pr checkout``) in a workflow that ``pull_request_target``,
  ``workflow_run`` or ``issue_comment`` starts: it runs with the base repository's secrets and
  write token ("pwn request"), critical; high when the job is gated (an environment, an ``if``
  on the author's association, a label, the actor, the head repository), as a human must
  confirm the gate holds;
- text outsiders write (titles and bodies of issues, pull requests and discussions, comments,
  reviews, branch names, commit messages and authors, wiki page names) put by ``${{ … }}``
  into a ``run:`` script or ``actions/github-script``'s ``script`` (also through ``${{ env.X
  }}``): script injection, high; through ``env:`` read as ``"$X"`` it is only data;
- ``permissions: write-all``: high in a workflow outsiders can start (the privileged triggers,
  issues, discussions, forks, stars), medium otherwise; ``contents: write`` with ``id-token:
  write`` in a ``pull_request_target``, ``workflow_run`` or ``issue_comment`` workflow: high;
- secrets sent out by a network command (``ci_secrets``): critical or high; ``toJSON(secrets)``
  in a script: critical, elsewhere high (every secret handed to one step);
- an action or reusable workflow of an owner outside ``TRUSTED_OWNERS`` pinned to a branch
  (``@main``, ``@master``, …): medium — a moving target that runs with the job's token;
- a self-hosted runner in a workflow pull requests start: medium.

GitLab CI: an ``include`` fetched from an address (``remote:``) — a moving target: medium.

``unread`` says why a CI file was not read (``coverage`` then keeps "not reviewed"): its
structure or keys (``ci_shape``), or a change that shows only part of a workflow and adds what
depends on the triggers it does not show. Other CI systems (CircleCI, Azure, Jenkins, …) are
not read.

The rules are ``ci_rules_triggers`` (what depends on the triggers) and ``ci_rules_steps`` (what
the steps run and fetch), each reading one window of the file (``ci_workflow_window``).
"""

from __future__ import annotations

from collections.abc import Iterator

from .base import CheckInput, Hit
from .ci_rules_steps import action_hits, injection_hits, remote_include_hits, secret_hits
from .ci_rules_triggers import permission_hits, pwn_request_hits, runner_hits
from .ci_shape import kind_of, unplaced, windows
from .ci_words import GITLAB
from .ci_workflow_window import WorkflowWindow
from .diff import FileDiff

__all__ = ["ci_workflows", "unread"]

_MAX_HITS = 20


def _read(file: FileDiff, hosts: frozenset[str]) -> tuple[str | None, list[Hit]]:
    """Why ``file`` (a CI file) could not be read (None: it was), and its findings."""
    path = file.path or ""
    kind = kind_of(path)
    if kind is None:
        return "", []
    found = windows(file, kind)
    if isinstance(found, str):
        return found, []
    hits: list[Hit] = []
    problems: list[str] = []
    for window in found:
        w = WorkflowWindow(path, window)
        if kind == GITLAB:
            hits.extend(remote_include_hits(w))
        else:
            for rule in (
                pwn_request_hits(w),
                injection_hits(w),
                permission_hits(w),
                action_hits(w),
            ):
                hits.extend(rule)
            hits.extend(runner_hits(w))
            hits.extend(secret_hits(w, hosts))
        problems.extend(w.problems + ([] if window.whole else unplaced(window, kind)))
    worst = sorted(hits, key=lambda h: h.severity, reverse=True)[:_MAX_HITS]
    return (problems[0] if problems else None), worst


def _ci_files(files: tuple[FileDiff, ...]) -> Iterator[FileDiff]:
    for f in files:
        real = f.path and not f.path.startswith("<") and not f.deleted and f.added
        if real and kind_of(f.path or "") is not None:
            yield f


def ci_workflows(ctx: CheckInput) -> Iterator[Hit]:
    """The findings of every GitHub Actions and GitLab CI file the change writes."""
    for f in _ci_files(ctx.files):
        yield from _read(f, ctx.options.allowed_hosts)[1]


def unread(file: FileDiff) -> str | None:
    """Why the triggers, actions and rights of a CI file were not read (empty: a CI system
    not read here); None when they were."""
    return _read(file, frozenset())[0]
