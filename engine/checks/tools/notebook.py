"""Jupyter notebooks as the checks read them: the code cells of a notebook written whole
(``.ipynb`` JSON) or of one cell edited, as the Python they run, and the shell their IPython
lines run (``!cmd``, ``%system``, a ``%%bash`` cell), which no Python parser reads."""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["MAX_NOTEBOOK", "code_cells", "is_notebook", "python_of"]

MAX_NOTEBOOK = 2_000_000
"""Characters of a notebook's JSON read (a larger one is left to the coverage check)."""
_MAX_CELLS = 512
_MAGIC = re.compile(r"^([ \t]*)(?:!|%)")


def is_notebook(path: str | None) -> bool:
    """A path that names a Jupyter notebook."""
    return path is not None and path.strip().lower().endswith(".ipynb")


def _source(cell: dict[str, Any]) -> str | None:
    source = cell.get("source")
    if isinstance(source, str):
        return source
    if isinstance(source, list) and all(isinstance(s, str) for s in source):
        return "".join(source)
    return None


def code_cells(text: str) -> list[str] | None:
    """The sources of a notebook's code cells, or ``None`` when ``text`` is not a notebook's
    JSON (bounded; never raises)."""
    if len(text) > MAX_NOTEBOOK or not text.lstrip().startswith("{"):
        return None
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        return None
    cells = document.get("cells") if isinstance(document, dict) else None
    if not isinstance(cells, list):
        return None
    out: list[str] = []
    for cell in cells[:_MAX_CELLS]:
        if isinstance(cell, dict) and cell.get("cell_type", "code") == "code":
            source = _source(cell)
            if source is not None:
                out.append(source)
    return out


def python_of(cells: list[str]) -> str:
    """The cells as one Python file: each IPython line (``!``, ``%``) and each cell magic's
    body (``%%bash`` …) kept as a ``pass`` at its place, so the rest parses and its line
    numbers hold. What those lines run is the shell reader's."""
    lines: list[str] = []
    for cell in cells:
        if cell.lstrip().startswith("%%"):
            lines.extend("pass" for _ in cell.splitlines())
            continue
        for line in cell.splitlines():
            magic = _MAGIC.match(line)
            lines.append(f"{magic.group(1)}pass" if magic else line)
    return "\n".join(lines) + "\n"
