"""One instance of a service restarted (for ``shell_rules_cloud.production_change``): its
controller or platform starts a fresh copy at once, so it is the everyday remedy for a stuck
or crash-looping instance, in production too — not a deploy or a change of what runs.

- ``kubectl delete pod NAME`` of one to three named pods whose names show a controller made
  them (a Deployment's ``api-7f9c8d6b5-x2lqp``, a StatefulSet's ``db-0``), no selector, no
  ``--all``, not forced past the grace period;
- ``heroku ps:restart web.2`` / ``heroku dyno:restart web.2`` of one named dyno;
- ``fly machine restart ID`` of named machines.

A pure function of the command's words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["restarts_one"]

_REPLICA = re.compile(
    r"^[a-z0-9](?:[a-z0-9-]{0,200}[a-z0-9])?-(?:[a-z0-9]{5,10}-[a-z0-9]{5}|\d{1,4})$"
)
"""A pod name a controller gave: a ReplicaSet's ``name-<hash>-<id>`` or a StatefulSet's
``name-<ordinal>``."""
_DYNO = re.compile(r"^[a-z][\w-]{0,60}\.\d{1,4}$")
_LOOSE = ("-l", "--selector", "--field-selector", "--all", "-A", "--all-namespaces", "--force")
_VALUED = frozenset(
    {"-n", "--namespace", "--context", "--cluster", "--kubeconfig", "-a", "--app", "-r",
     "--remote", "--user", "-s", "--server", "--grace-period", "--timeout"}
)  # fmt: skip


def _operands(words: Sequence[str]) -> tuple[list[str], list[str]]:
    """(operands, options) of ``words``, skipping the values of valued options."""
    operands: list[str] = []
    options: list[str] = []
    skip = False
    for word in words[:40]:
        if skip:
            skip = False
        elif word.startswith("-"):
            options.append(word)
            skip = word in _VALUED
        else:
            operands.append(word)
    return operands, options


def restarts_one(argv: Sequence[str]) -> bool:
    """Whether ``argv`` restarts one (or a few) named instances of a service (see the module)."""
    if not argv:
        return False
    program = argv[0].rsplit("/", 1)[-1]
    operands, options = _operands(argv[1:])
    if any(o.split("=", 1)[0] in _LOOSE or o == "--grace-period=0" for o in options):
        return False
    if program == "kubectl":
        return (
            len(operands) >= 3
            and operands[0] == "delete"
            and operands[1] in ("pod", "pods", "po")
            and len(operands) <= 5
            and all(_REPLICA.match(n) for n in operands[2:])
        )
    if program == "heroku":
        return (
            len(operands) == 2
            and operands[0] in ("ps:restart", "dyno:restart")
            and bool(_DYNO.match(operands[1]))
        )
    if program in ("fly", "flyctl"):
        return 3 <= len(operands) <= 5 and operands[:2] == ["machine", "restart"]
    return False
