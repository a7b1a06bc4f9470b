"""The agent's own home, outside its workspace: where everyday notes, job scripts and analysis
files land (``~/notes/standup.md``, ``~/jobs/train.sbatch``, ``~/reports/q3.csv``).

A write or edit there is no "path outside the workspace" when the workspace lies in the same
home, the file is a document, data file or plain script by its extension, and no folder on
the way is hidden (``.ssh``, ``.config``), on the command path (``bin``), served to the web
(``public_html``), run at login (``Startup``, ``LaunchAgents``) or synced to an outside cloud
(``Dropbox``, ``OneDrive``, ``Google Drive``). A delete there counts only for a file whose own
name marks it as throwaway (``export_tmp.csv``). Files that run on their own when a tool next
builds or starts (``conftest.py``, ``setup.py``, ``sitecustomize.py``) and code in another
project's source tree (``~/other-project/src/config.py``) are never such a file, and a script
counts only when written new: an edit changes a program already in use.
What the file says is read by the content checks as anywhere else. Pure.
"""

from __future__ import annotations

import re

from .paths_norm import Place

__all__ = ["own_home_file"]

_EXTENSIONS = frozenset(
    {
        "md", "markdown", "txt", "rst", "org", "tex", "bib", "csv", "tsv", "json", "jsonl",
        "ndjson", "geojson", "yaml", "yml", "toml", "log", "pdf", "png", "jpg", "jpeg", "svg",
        "gif", "ipynb", "parquet", "xlsx", "docx", "pptx", "odt", "ods", "py", "r", "rmd",
        "jl", "sql", "sh", "bash", "sbatch", "slurm", "pbs", "m", "ps1",
    }
)  # fmt: skip
_RUN_BY_TOOLS = frozenset(
    {"conftest.py", "setup.py", "sitecustomize.py", "usercustomize.py", "noxfile.py", "fabfile.py"}
)
"""Files a tool runs by itself when it next builds, tests or starts in that folder."""
_FOLDERS = re.compile(
    r"(?i)^(?:s?bin|public_html|www|htdocs|sites|library|appdata|startup|start menu|autostart"
    r"|launchagents|launchdaemons|applications|programs|\.?[\w ]*(?:dropbox|onedrive|google ?drive"
    r"|icloud|nextcloud|owncloud|syncthing|seafile|pcloud|mega)[\w ()-]*|box|box sync"
    r"|shared drives|my drive|sync)$"
)
"""Folders that run, serve or sync what lands in them (besides hidden ones)."""
_CODE = frozenset({"py", "r", "jl", "sql", "sh", "bash", "m", "ps1"})
_PROJECT_TREE = frozenset(
    {"src", "lib", "app", "apps", "pkg", "packages", "cmd", "internal", "modules", "node_modules",
     "site-packages", "vendor"}
)  # fmt: skip
"""Folders of another project's source tree: code written there changes that project."""
_THROWAWAY = re.compile(r"(?i)(?:^|[._-])(?:tmp|temp|scratch)(?:$|[._-])")
_MAX_PARTS = 30


def _same_home(place: Place, workspace: Place) -> bool:
    """The path lies in the home the workspace lies in (a workspace in no home, as ``/srv/app``,
    has none: another user's home is someone else's)."""
    if not (place.home and workspace.home):
        return False
    return place.root == workspace.root or "~" in (place.root, workspace.root)


def own_home_file(place: Place, workspace: Place | None, op: str) -> bool:
    """Whether ``op`` (write, edit or delete) on ``place`` is everyday work in the home the
    workspace lies in: a plain document, data file or script, in no hidden, command, served,
    start-up or cloud-synced folder (a delete: only of a file its name marks as throwaway)."""
    if workspace is None or op not in ("write", "edit", "delete"):
        return False
    parts = place.parts
    if not parts or len(parts) > _MAX_PARTS or not _same_home(place, workspace):
        return False
    name = parts[-1]
    if name.startswith(".") or "." not in name or len(name) > 200:
        return False
    stem, _, ext = name.rpartition(".")
    if ext.lower() not in _EXTENSIONS or name.lower() in _RUN_BY_TOOLS:
        return False
    code = ext.lower() in _CODE
    if code and op == "edit":
        return False  # an edit changes a program already in use; a new script runs nothing
    for folder in parts[:-1]:
        if code and folder.lower() in _PROJECT_TREE:
            return False
        if not folder or folder.startswith(".") or folder in ("*", "..") or "*" in folder:
            return False
        if _FOLDERS.match(folder[:80]):
            return False
    return op != "delete" or bool(_THROWAWAY.search(stem[:200]))
