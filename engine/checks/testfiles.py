"""Whether a file is a test, by its folder or its name."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import PurePosixPath

__all__ = ["is_test_path"]

_TEST_DIRS = frozenset({"tests", "test", "testing", "__tests__", "spec", "specs"})
_TEST_NAME = re.compile(
    r"^(?:test_.*\.py|.*_test\.(?:py|go|rb)|conftest\.py|.*\.(?:spec|test)\.[jt]sx?)$"
)


@lru_cache(maxsize=4096)
def is_test_path(path: str | None) -> bool:
    """Whether a path is a test, by directory (``tests/``, ...) or by file name."""
    if not path:
        return False
    p = PurePosixPath(path.replace("\\", "/"))
    return bool(_TEST_DIRS.intersection(p.parts[:-1])) or bool(_TEST_NAME.match(p.name))
