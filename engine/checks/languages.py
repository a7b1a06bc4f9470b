"""Source files in languages other than Python and shell, by extension: the ones the local
checks read for what code can do to a machine (``source_code``, and the commands they start
through ``shell_files``), not for its logic."""

from __future__ import annotations

import posixpath
import re

__all__ = ["MIGRATION_EXTENSIONS", "OTHER_CODE", "other_code", "sql_section"]

OTHER_CODE = {
    ".js": "JavaScript",
    ".mjs": "JavaScript",
    ".cjs": "JavaScript",
    ".jsx": "JavaScript",
    ".ts": "TypeScript",
    ".tsx": "TypeScript",
    ".mts": "TypeScript",
    ".cts": "TypeScript",
    ".go": "Go",
    ".rs": "Rust",
    ".java": "Java",
    ".kt": "Kotlin",
    ".kts": "Kotlin",
    ".scala": "Scala",
    ".groovy": "Groovy",
    ".gradle": "Groovy",
    ".rb": "Ruby",
    ".rake": "Ruby",
    ".php": "PHP",
    ".cs": "C#",
    ".c": "C",
    ".h": "C",
    ".cc": "C++",
    ".cpp": "C++",
    ".cxx": "C++",
    ".hpp": "C++",
    ".hh": "C++",
    ".swift": "Swift",
    ".lua": "Lua",
    ".pl": "Perl",
    ".pm": "Perl",
    ".dart": "Dart",
    ".ex": "Elixir",
    ".exs": "Elixir",
    ".vue": "JavaScript",
    ".svelte": "JavaScript",
}
"""Extension → language: the code a coding agent writes most, besides Python and shell."""

MIGRATION_EXTENSIONS = frozenset({".sql"})
"""SQL files: migrations and seeds, read statement by statement (``source_code``)."""


def other_code(path: str | None) -> str | None:
    """The language of a source file at ``path`` in ``OTHER_CODE``, else ``None``."""
    if not path:
        return None
    name = posixpath.basename(path.replace("\\", "/")).lower()
    return OTHER_CODE.get(posixpath.splitext(name)[1])


_SQL_SECTION = re.compile(
    r"(?i)^[ \t]*--[ \t]*(?:\+(?:goose|migrate)[ \t]+(up|down)|migrate:(up|down)|(up|down)\b)"
)


def sql_section(line: str) -> str | None:
    """``"up"`` or ``"down"`` when ``line`` opens a SQL migration's section (goose's
    ``-- +goose Down``, sql-migrate's ``-- +migrate Down``, dbmate's ``-- migrate:down``)."""
    m = _SQL_SECTION.match(line)
    if m is None:
        return None
    return next(g for g in m.groups() if g).lower()
