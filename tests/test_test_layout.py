"""The suite is collected in one pytest session with rootdir-relative imports (no packages under
``tests/``), so two test modules with the same file name in different folders stop collection
of both. Running the suite in halves hides that; this test does not."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_test_module_has_a_file_name_of_its_own() -> None:
    places: defaultdict[str, list[str]] = defaultdict(list)
    for folder in ("tests", "examples"):
        for path in (ROOT / folder).rglob("test_*.py"):
            places[path.name].append(str(path.parent.relative_to(ROOT)))
    clashes = {name: where for name, where in places.items() if len(where) > 1}
    assert not clashes, f"module file names used twice (rename one): {clashes}"
