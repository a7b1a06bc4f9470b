"""One file moved along its own folder tree (for ``paths``): ``/data/feeds/inbound/a.hl7`` to
``/data/feeds/processed/2025/06/a.hl7`` — a file filed from an inbox to its archive on the same
share, the everyday step of a processing job. Nothing is destroyed or sent anywhere: the file
keeps its name and stays under the same application folder.

What it takes: the tool moves (or renames) exactly one source to one destination; both are
absolute and share at least two leading folders (``/data/feeds``, ``/srv/intake``); the file
keeps its name, which has an extension; no ``..``, glob or variable; and neither path is in a
place whose files others serve, run or trust (a web root, ``/etc``, start-up, credentials).
Only the "outside the workspace" and "system-wide folder" verdicts are quieted: whatever else
the path rules say of either path still stands.
"""

from __future__ import annotations

import re

from .paths_hardening import QUIET_TITLES
from .view import ToolView

__all__ = ["QUIET_TITLES", "same_tree_move"]

_SOURCES = ("source", "src", "from", "from_path", "source_path", "old_path")
_DESTINATIONS = ("destination", "dest", "dst", "to", "to_path", "destination_path", "new_path")
_FILE = re.compile(r"^[\w.@ -]{1,200}\.[A-Za-z0-9]{1,10}$")
_SERVED = re.compile(
    r"(?i)^/(?:etc|bin|sbin|usr|lib\w*|boot|root|dev|proc|sys|run|var/www|var/lib|var/spool|"
    r"opt/[^/]+/(?:bin|conf|etc))(?:/|$)|/(?:public|public_html|htdocs|www|static|uploads|"
    r"\.ssh|\.aws|\.git|\.config|cron[\w.]*|init\.d|systemd)(?:/|$)"
)
_MOVES = re.compile(r"(?i)(?:^|[_.-])(?:move|mv|rename)(?:$|[_.-]|file)")


def _one(view: ToolView, names: tuple[str, ...]) -> str | None:
    found = [v for k, v in view.call.arguments.items() if k.lower() in names]
    return found[0] if len(found) == 1 and isinstance(found[0], str) else None


def same_tree_move(view: ToolView) -> bool:
    """Whether the call moves one file along its own folder tree (see the module)."""
    if not _MOVES.search(view.call.name.rsplit("__", 1)[-1]) or len(view.call.arguments) > 6:
        return False
    source, destination = _one(view, _SOURCES), _one(view, _DESTINATIONS)
    if source is None or destination is None or len(source) > 500 or len(destination) > 500:
        return False
    paths = (source, destination)
    if any(not p.startswith("/") or ".." in p or re.search(r"[*?$`~]", p) for p in paths):
        return False
    if any(_SERVED.search(p) for p in paths):
        return False
    src, dst = source.split("/")[1:], destination.split("/")[1:]
    if src[-1] != dst[-1] or not _FILE.match(src[-1]) or len(src) < 3 or len(dst) < 3:
        return False
    return src[:2] == dst[:2] and all(src[:2])
