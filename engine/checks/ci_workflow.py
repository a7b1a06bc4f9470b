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
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .base import CheckInput, Hit
from .ci_secrets import secret_sends
from .ci_shape import (
    Window,
    expressions,
    kind_of,
    normal,
    script_of,
    triggers,
    unplaced,
    windows,
)
from .ci_words import (
    BRANCHES,
    FETCH,
    GATE,
    GITLAB,
    HEAD,
    OUTSIDERS,
    PRIVILEGED,
    PULL_REQUESTS,
    TRUSTED_OWNERS,
    UNTRUSTED,
)
from .ci_yaml import Node, plain
from .diff import FileDiff

__all__ = ["ci_workflows", "unread"]

_MAX_HITS = 20
_ALL_SECRETS = re.compile(r"(?i)tojson\(\s{0,9}secrets\s{0,9}\)")


class _Workflow:
    """One window of a CI file and what the rules need to know about it."""

    def __init__(self, path: str, window: Window) -> None:
        self.path, self.tree = path, window.tree
        self.added, self.whole = window.added, window.whole
        self.nodes = list(self.tree.walk())
        workflow = window.whole and any(r.key == "on" for r in self.tree.roots)
        self.on = triggers(self.tree) if workflow else None  # None: not known (or an action)
        self.problems: list[str] = []
        self.env_untrusted: set[str] = set()
        self.env_secrets: set[str] = set()
        self.env_head: set[str] = set()
        for node, above in self.nodes:
            if above and above[-1].key == "env" and node.key:
                value = expressions(node.value)
                if UNTRUSTED.search(value):
                    self.env_untrusted.add(node.key.lower())
                if re.search(r"\bsecrets\b", value):
                    self.env_secrets.add(node.key)
                if HEAD.search(value):
                    self.env_head.add(node.key)

    def privileged(self) -> bool:
        return bool(self.on and self.on & PRIVILEGED)

    def touched(self, node: Node) -> bool:
        return any(n in self.added for n, _ in self.tree.lines(node))

    def hit(self, severity: Severity, title: str, why: str, fix: str, line: int) -> Hit:
        return Hit(severity, title, f"{self.path}:{line}: {why}", fix, file=self.path, line=line)


def _injections(w: _Workflow) -> Iterator[Hit]:
    for node, above in w.nodes:
        if script_of(w.tree, node, above) is None:
            continue
        for number, text in w.tree.lines(node):
            found = expressions(text)
            via_env = any(m in w.env_untrusted for m in re.findall(r"env\.(\w{1,100})", found))
            if number in w.added and (UNTRUSTED.search(found) or via_env):
                yield w.hit(
                    Severity.HIGH,
                    "outsiders' text pasted into a CI script (script injection)",
                    "`${{ … }}` pastes text anyone can write (an issue or pull request title or "
                    "body, a comment, a branch name, a commit message) into the script before "
                    "it runs, so that text can run commands with the job's token and secrets.",
                    'Pass it through `env:` (`TITLE: ${{ … }}`) and use "$TITLE" in the script.',
                    number,
                )
                break


def _head_checkouts(w: _Workflow) -> Iterator[tuple[int, tuple[Node, ...]]]:
    """The lines that check out or fetch a pull request's code, with their ancestors."""
    for node, above in w.nodes:
        if node.key not in ("with", "run"):
            continue
        for number, text in w.tree.lines(node):
            if node.key == "with":
                pair = re.search(r"\b(?:ref|repository)\s*:(.{0,400})", text)
                found = pair is not None and bool(HEAD.search(normal(pair.group(1))))
            else:
                names = set(re.findall(r"\$\{?(\w{1,100})", text))
                head = HEAD.search(normal(text)) or names & w.env_head
                found = bool(FETCH.search(text) and head) or "gh pr checkout" in text
            if found:
                yield number, (*above, node)
                break


def _gated(w: _Workflow, chain: tuple[Node, ...]) -> bool:
    if len(chain) < 2 or chain[0].key != "jobs":
        return False
    job = chain[1]
    ifs = [n.value for n in job.descendants() if n.key == "if"]
    return job.get("environment") is not None or any(GATE.search(normal(v)) for v in ifs)


def _pwn_requests(w: _Workflow) -> Iterator[Hit]:
    on_added = any(w.touched(r) for r in w.tree.roots if r.key == "on")
    for number, chain in _head_checkouts(w):
        if w.on is None and number in w.added:
            w.problems.append(
                f"line {number} checks out a pull request's code, which is safe or not by the "
                "workflow's triggers, and the change does not show them"
            )
        if not (w.privileged() and (on_added or number in w.added)):
            continue
        gated = _gated(w, chain)
        yield w.hit(
            Severity.HIGH if gated else Severity.CRITICAL,
            "a pull request's code run with the repository's secrets (pwn request)",
            "a workflow started by pull_request_target, workflow_run or issue_comment has the "
            "base repository's secrets and a write token; checking out the pull request's code "
            "there lets its author run anything with them"
            + (" (a gate is in place: confirm it holds)." if gated else "."),
            "Build pull requests under `pull_request` (no secrets) and keep the privileged "
            "workflow to trusted data, or gate it behind an environment with required reviewers.",
            number,
        )


def _permissions(w: _Workflow) -> Iterator[Hit]:
    for node, _ in w.nodes:
        if node.key != "permissions" or not w.touched(node):
            continue
        target = w.tree.resolve(node)
        text = (target.value + "\n" + w.tree.text(target)).lower()
        everything = plain(target.value).lower() == "write-all"
        both = bool(re.search(r"\bcontents\s*:\s*['\"]?write", text)) and bool(
            re.search(r"\bid-token\s*:\s*['\"]?write", text)
        )
        if w.on is None and (everything or both):
            w.problems.append(
                f"line {node.line} grants write rights whose risk depends on the workflow's "
                "triggers, and the change does not show them"
            )
            continue
        if not (everything or (both and w.privileged())):
            continue
        outsiders = bool(w.on and w.on & OUTSIDERS)
        what = (
            "`permissions: write-all` lets every step write code, releases, packages and settings"
            if everything
            else "`contents: write` with `id-token: write` lets the job push code and mint "
            "cloud credentials"
        )
        yield w.hit(
            Severity.HIGH if outsiders else Severity.MEDIUM,
            "CI token given broad write rights",
            what + (" while it handles events anyone can cause." if outsiders else "."),
            "Grant only the scopes each job needs (`contents: read` at the top, more per job).",
            node.line,
        )


def _secrets(w: _Workflow, hosts: frozenset[str]) -> Iterator[Hit]:
    for node, above in w.nodes:
        if node.key is None or node.children or not w.touched(node):
            continue
        lines = list(w.tree.lines(node))
        script = script_of(w.tree, node, above)
        every = [n for n, t in lines if n in w.added and _ALL_SECRETS.search(t)]
        if every:
            yield w.hit(
                Severity.CRITICAL if script is not None else Severity.HIGH,
                "every repository secret handed to one CI step",
                "`toJSON(secrets)` is the whole secrets context"
                + (", pasted into a script." if script is not None else "."),
                "Pass each secret the step needs by name.",
                every[0],
            )
        if script is not None and node.key == "run":
            for line, found in secret_sends(script, lines, frozenset(w.env_secrets), hosts):
                if line in w.added:
                    fix = found.suggestion or ""
                    yield w.hit(found.severity, found.title, found.description, fix, line)


def _actions(w: _Workflow) -> Iterator[Hit]:
    for node, _ in w.nodes:
        if node.key != "uses" or node.line not in w.added:
            continue
        m = re.match(r"^([\w.-]+)/[^@\s]+@(\S+)$", plain(node.value))
        if m and m.group(1).lower() not in TRUSTED_OWNERS and m.group(2).lower() in BRANCHES:
            yield w.hit(
                Severity.MEDIUM,
                "third-party action pinned to a branch",
                f"`{plain(node.value)[:160]}` runs whatever is pushed to that branch next, with "
                "the job's token and secrets.",
                "Pin it to a release tag or, better, a full commit SHA.",
                node.line,
            )


def _runners(w: _Workflow) -> Iterator[Hit]:
    if w.on is not None and not w.on & PULL_REQUESTS:
        return
    for node, above in w.nodes:
        if node.key != "runs-on" or not w.touched(node):
            continue
        strategy = above[-1].get("strategy") if above and "${{" in node.value else None
        text = w.tree.text(node) + (w.tree.text(strategy) if strategy is not None else "")
        if "self-hosted" in text.lower():
            yield w.hit(
                Severity.MEDIUM,
                "self-hosted runner for pull requests",
                "a pull request from a fork runs its code on this machine, which keeps what it "
                "leaves behind" + ("." if w.on is not None else " (if pull requests start it)."),
                "Run pull requests on GitHub-hosted runners, or require approval for forks.",
                node.line,
            )


def _remote_includes(w: _Workflow) -> Iterator[Hit]:
    for node, above in w.nodes:
        url = plain(node.value)
        included = node.key in ("remote", "include") or any(a.key == "include" for a in above)
        if node.line in w.added and included and re.match(r"(?i)^https?://", url):
            yield w.hit(
                Severity.MEDIUM,
                "pipeline configuration fetched from an address",
                f"`{url[:160]}` is read each time the pipeline runs: whoever serves it decides "
                "what the jobs do, with their variables and token.",
                "Include a file of this project, or another project's file at a pinned `ref`.",
                node.line,
            )


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
        w = _Workflow(path, window)
        if kind == GITLAB:
            hits.extend(_remote_includes(w))
        else:
            for rule in (_pwn_requests(w), _injections(w), _permissions(w), _actions(w)):
                hits.extend(rule)
            hits.extend(_runners(w))
            hits.extend(_secrets(w, hosts))
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
