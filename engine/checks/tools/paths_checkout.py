"""A file inside a source checkout kept outside the workspace (for ``paths``):
``/srv/repos/billing/config/app.yaml``, ``/opt/src/api/Dockerfile``,
``/home/dev/src/engine/README.md``. Such a tree is version-controlled text under review, not
a live system. Reading one, or writing its documentation, tests, fixtures, migrations, ignore
rules or example settings, is everyday work wherever the tree lies (a system-wide folder,
another home, outside the workspace), so those verdicts are quieted for them; what the content
says is still judged by the content checks, and every path rule of its own (CI workflows, git
internals, ``.env`` files, keys, the agent's settings) keeps its verdict. Code, manifests and
deployment settings changed outside the workspace still need a person: there the place is
the only warning a quiet backdoor gives.

Not a checkout: anything under ``/etc``, ``/usr``, ``/var/www``, a served, public or
start-up folder (``public``, ``htdocs``, ``uploads``, ``static``, ``cron.d``, ``systemd``),
a dot-folder of a home (``~/.ssh``), or a deployed program's ``bin``/``conf`` folder. The
path must name a checkout folder (``repos``, ``src``, ``git``, ``code``, ``projects``…)
then a project, then a file: at least two names after the checkout folder. Pure and bounded.
"""

from __future__ import annotations

import re

__all__ = ["CHECKOUT_QUIET", "in_checkout", "quiet_checkout"]

CHECKOUT_QUIET = (
    "a system-wide folder",
    "a path outside the workspace",
    "a file in a home folder outside the workspace",
)
"""The verdicts (``Verdict.title`` endings) that a checkout's place does not deserve."""

_MAX = 400
_CHECKOUT = re.compile(
    r"^/(?:srv|opt|home/[\w.-]{1,40}|users/[\w.-]{1,40}|var/lib|data|mnt/[\w.-]{1,40})"
    r"(?:/[\w.-]{1,60}){0,2}/(?:repos|repositories|src|source|git|code|projects|checkouts?)"
    r"/[\w.-]{1,80}/[^/]"
)
_LIVE = re.compile(
    r"(?i)/(?:public|public_html|htdocs|www|wwwroot|static|uploads|media|cron[\w.]*|init\.d"
    r"|systemd|sudoers\.d|profile\.d|site-packages|dist-packages|node_modules|\.[\w-]+/hooks"
    r"|backups?)(?:/|$)|/\.(?!gitignore$|env\.example$|dockerignore$)"
)


def in_checkout(path: str) -> bool:
    """Whether the normalised absolute ``path`` lies inside a source checkout (see the
    module)."""
    if len(path) > _MAX or ".." in path or re.search(r"[*?$`~\\]", path):
        return False
    low = path.lower()
    return _CHECKOUT.match(low) is not None and _LIVE.search(low) is None


_LOW_STAKES = re.compile(
    r"(?i)/(?:docs?|tests?|__tests__|spec|fixtures|testdata|migrations|postmortems|runbooks)/"
    r"|/(?:test_[\w.-]+|[\w.-]+_test\.\w{1,5}|[\w.-]+\.(?:md|rst|adoc|txt)"
    r"|readme[\w.-]*|changelog[\w.-]*|\.gitignore|\.dockerignore|\.env\.example)$"
)
"""Documentation, tests and their fixtures, migrations kept for review, ignore rules and an
example settings file: nothing a service runs as it is."""


def quiet_checkout(path: str, op: str) -> bool:
    """Whether ``path``'s place verdicts are quieted for the operation ``op``: a read of any
    file of a checkout, or a write or edit of one of its low-stakes files (see the module)."""
    if not in_checkout(path):
        return False
    return op == "read" or (op in ("write", "edit") and _LOW_STAKES.search(path) is not None)
