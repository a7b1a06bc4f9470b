"""The ``ci_workflow`` rules whose risk depends on what starts a GitHub Actions workflow:

- a pull request's code checked out or fetched in a workflow that ``pull_request_target``,
  ``workflow_run`` or ``issue_comment`` starts ("pwn request"): critical, high when the job
  is gated (an environment, an ``if`` on the author, a label, the actor, the head repository);
- ``permissions: write-all`` (high when outsiders can start the workflow, medium otherwise),
  ``contents: write`` with ``id-token: write`` in a privileged workflow (high);
- a self-hosted runner in a workflow pull requests start: medium.

When a window does not show the triggers, a pull request's checkout or broad rights it adds
are a reason it could not be read (``WorkflowWindow.problems``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .base import Hit
from .ci_shape import normal
from .ci_words import FETCH, GATE, HEAD, OUTSIDERS, PULL_REQUESTS
from .ci_workflow_window import WorkflowWindow
from .ci_yaml import Node, plain

__all__ = ["permission_hits", "pwn_request_hits", "runner_hits"]


def _head_checkouts(w: WorkflowWindow) -> Iterator[tuple[int, tuple[Node, ...]]]:
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


def _gated(w: WorkflowWindow, chain: tuple[Node, ...]) -> bool:
    if len(chain) < 2 or chain[0].key != "jobs":
        return False
    job = chain[1]
    ifs = [n.value for n in job.descendants() if n.key == "if"]
    return job.get("environment") is not None or any(GATE.search(normal(v)) for v in ifs)


def pwn_request_hits(w: WorkflowWindow) -> Iterator[Hit]:
    """A pull request's code checked out in a workflow that has the base repository's secrets."""
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


def permission_hits(w: WorkflowWindow) -> Iterator[Hit]:
    """Broad write rights given to the workflow's token where outsiders can use them."""
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


def runner_hits(w: WorkflowWindow) -> Iterator[Hit]:
    """A self-hosted runner in a workflow pull requests (may) start."""
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
