"""Where a file made for people to read may land outside the workspace (for
``paths_judge``): a report, summary or export of figures (``.csv``, ``.tsv``, ``.md``,
``.xlsx``, ``.pdf``) written into a folder named for reports or outputs on a data or shared
volume (``/srv/reports/…``, ``/mnt/shared/finance/reports/…``) or of a home folder
(``~agent/reports/…``, as ``paths_norm`` shows a home). Such a file is read, never
run or served: writing it there is everyday. System, web-served, hidden and home
configuration folders are never such a place. A pure function of the path."""

from __future__ import annotations

import posixpath

__all__ = ["report_out"]

_EXTENSIONS = frozenset({".csv", ".tsv", ".md", ".xlsx", ".pdf"})
_REPORT_DIRS = frozenset(
    {"reports", "report", "exports", "outputs", "output", "results", "summaries", "analysis"}
)
_VOLUMES = frozenset({"srv", "mnt", "data", "media", "shared", "volumes"})
_SERVED = frozenset(
    {"www", "html", "htdocs", "public", "public_html", "static", "wwwroot", "webroot", "cgi-bin"}
)


def report_out(path: str) -> bool:
    """``path`` (an absolute, normalised path, a home shown as ``~user/``) names a report file
    in a reports or outputs folder of a data or shared volume or of a home folder."""
    parts = [p for p in path.lower().split("/") if p]
    home = path.startswith("~") and not path.startswith("~root")
    if not (path.startswith("/") or home) or len(parts) < 3 or not (home or parts[0] in _VOLUMES):
        return False
    folders = parts[:-1]
    if any(p.startswith(".") for p in parts) or _SERVED.intersection(folders):
        return False
    return posixpath.splitext(parts[-1])[1] in _EXTENSIONS and bool(
        _REPORT_DIRS.intersection(folders)
    )
