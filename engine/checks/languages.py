"""Source files in languages other than Python and shell, by extension: the ones the local
checks read for what code can do to a machine (``source_code``, and the commands they start
through ``shell_files``), not for its logic."""

from __future__ import annotations

import posixpath
import re

__all__ = [
    "DOWN_FILE",
    "MIGRATION_EXTENSIONS",
    "MIGRATION_PATH",
    "OTHER_CODE",
    "migration_function",
    "other_code",
    "sql_section",
]

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
    ".fs": "F#",
    ".fsx": "F#",
    ".erl": "Erlang",
    ".hrl": "Erlang",
    ".jl": "Julia",
    ".clj": "Clojure",
    ".cljs": "Clojure",
    ".cljc": "Clojure",
    ".hs": "Haskell",
    ".nim": "Nim",
    ".zig": "Zig",
    ".r": "R",
    ".m": "Objective-C",
    ".mm": "Objective-C",
    ".ps1": "PowerShell",
    ".psm1": "PowerShell",
    ".vue": "JavaScript",
    ".svelte": "JavaScript",
    ".coffee": "CoffeeScript",
    ".gd": "GDScript",
    ".vb": "Visual Basic",
    ".cr": "Crystal",
    ".ml": "OCaml",
    ".hx": "Haxe",
    ".tcl": "Tcl",
    ".ino": "C++",
    ".cu": "C++",
    ".sol": "Solidity",
    ".gleam": "Gleam",
    ".rkt": "Racket",
    ".lisp": "Lisp",
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


DOWN_FILE = re.compile(r"(?i)[._-]down\.sql$")
"""A SQL migration's way back in a file of its own (``0004_x.down.sql``)."""

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


MIGRATION_PATH = re.compile(r"(?:^|/)(?:migrations?|migrate|alembic/versions|db/migrate)/", re.I)
"""Where migrations live (Django, Alembic, Rails, Laravel, EF Core, goose, Knex…)."""
_FUNCTION = re.compile(
    r"^\s*(?:(?:async\s+)?def\s+\w+|(?:export\s+)?(?:async\s+)?function\s+\w+|"
    r"(?:exports\.|public\s+(?:async\s+)?\w+\s+)?\w+\s*[:=(]\s*(?:async\s*)?\(|"
    r"(?:public\s+)?(?:async\s+)?(?:up|down)\s*\(|"
    r"(?:(?:public|protected|private|internal)\s+)?(?:static\s+)?(?:override\s+)?"
    r"(?:async\s+)?(?:function|void|fun|Task)\s+\w+\s*\(|"
    r"func\s+(?:\([^)]*\)\s*)?\w+\s*\(|(?:pub\s+)?fn\s+\w+\s*\()"
)
"""The start of a function of a migration: ``def upgrade``, ``exports.down = …``,
``public function down()``, ``protected override void Down(``, ``func downAddIndex(``."""
_WAY_BACK = re.compile(
    r"(?i:\b(?:downgrade|down|backwards|rollback|revert|reverse)\b)|"
    r"\b(?:down|Down|rollback|Rollback|revert|Revert)(?=[A-Z_0-9])"
)


def migration_function(line: str) -> bool | None:
    """Whether ``line`` opens a migration's way back (``True``: what it drops is what its way
    forward created) or another function (``False``); ``None``: it opens no function."""
    if not _FUNCTION.search(line):
        return None
    return bool(_WAY_BACK.search(line))
