"""The ``ci_workflow`` rules on what a CI file's steps run and fetch:

- text outsiders write put by ``${{ … }}`` into a ``run:`` script or
  ``actions/github-script``'s ``script`` (also through ``${{ env.X }}``): script injection,
  high;
- secrets sent out by a network command (``ci_secrets``); ``toJSON(secrets)`` in a script:
  critical, elsewhere high;
- an action or reusable workflow of an owner outside ``TRUSTED_OWNERS`` pinned to a branch:
  medium;
- GitLab CI: an ``include`` fetched from an address: medium.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .base import Hit
from .ci_secrets import secret_prints, secret_sends
from .ci_shape import expressions, script_of
from .ci_words import BRANCHES, TRUSTED_OWNERS, UNTRUSTED
from .ci_workflow_window import WorkflowWindow
from .ci_yaml import plain

__all__ = ["action_hits", "injection_hits", "remote_include_hits", "secret_hits"]

_ALL_SECRETS = re.compile(r"(?i)tojson\(\s{0,9}secrets\s{0,9}\)")


def injection_hits(w: WorkflowWindow) -> Iterator[Hit]:
    """Outsiders' text pasted into a script by an expression (script injection)."""
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


def secret_hits(w: WorkflowWindow, hosts: frozenset[str]) -> Iterator[Hit]:
    """Every secret handed to one step, and secrets a ``run:`` script sends out."""
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
            env = frozenset(w.env_secrets)
            found_lines = [*secret_sends(script, lines, env, hosts)]
            found_lines += secret_prints(script, lines, env)
            for line, found in found_lines:
                if line in w.added:
                    fix = found.suggestion or ""
                    yield w.hit(found.severity, found.title, found.description, fix, line)


def action_hits(w: WorkflowWindow) -> Iterator[Hit]:
    """A third-party action or reusable workflow pinned to a branch."""
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


def remote_include_hits(w: WorkflowWindow) -> Iterator[Hit]:
    """A GitLab CI ``include`` fetched from an address."""
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
