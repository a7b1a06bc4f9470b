"""The unified-diff parser: files, line numbers, flags, leniency, and never raising."""

from __future__ import annotations

from checks_helpers import action, fixture, modify, new_file
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from humangr.engine.checks import looks_like_diff, parse_diff
from humangr.engine.checks.base import read_action


def _by_path(text: str) -> dict[str | None, object]:
    return {f.path: f for f in parse_diff(text).files}


def test_multi_file_diff_paths_flags_and_numbers() -> None:
    parsed = parse_diff(fixture("multi_file.diff"))
    assert parsed.error is None
    files = {f.path: f for f in parsed.files}
    assert list(files) == [
        "app/service.py",
        "db/schema.sql",
        "docs/new.md",
        "tests/test_old.py",
        "lib/b.py",
        "img/logo.png",
    ]

    svc = files["app/service.py"]
    assert [(a.number, a.text) for a in svc.added] == [
        (12, "        self.load(strict=True)"),
        (13, "        self.ready = True"),
        (43, "        self.stop()"),
    ]
    assert [(r.number, r.text) for r in svc.removed] == [
        (12, "        self.load()"),
        (42, "        pass"),
        (43, "        # gone"),
    ]
    assert [h.heading for h in svc.hunks] == ["class Service:", "class Service:"]
    assert not (svc.new_file)
    assert not (svc.deleted)
    assert not (svc.renamed)

    sql = files["db/schema.sql"]
    assert [(r.number, r.text) for r in sql.removed] == [(2, "-- old comment")]
    assert [(a.number, a.text) for a in sql.added] == [(2, "-- new comment")]

    doc = files["docs/new.md"]
    assert doc.new_file
    assert not doc.deleted
    assert [(a.number, a.text) for a in doc.added] == [(1, "# Title"), (2, "text")]

    gone = files["tests/test_old.py"]
    assert gone.deleted
    assert not gone.new_file
    assert gone.added == ()
    assert [r.number for r in gone.removed] == [1, 2]

    moved = files["lib/b.py"]
    assert moved.renamed
    assert moved.old_path == "lib/a.py"
    assert [(a.number, a.text) for a in moved.added] == [(1, "X = 2")]

    logo = files["img/logo.png"]
    assert logo.binary
    assert logo.new_file
    assert logo.added == ()


def test_wrong_hunk_counts_keep_every_added_line() -> None:
    text = (
        "--- a/app.py\n+++ b/app.py\n@@ -1,1 +1,1 @@\n x = 1\n+y = 2\n+z = 3\n"
        "@@ -20,1 +22,2 @@\n a = 1\n+b = 2\n"
    )
    f = parse_diff(text).files[0]
    assert [(a.number, a.text) for a in f.added] == [(2, "y = 2"), (3, "z = 3"), (23, "b = 2")]


def test_counts_too_large_stop_at_the_next_file() -> None:
    text = (
        "--- a/one.py\n+++ b/one.py\n@@ -1,9 +1,9 @@\n+first\n"
        "--- a/two.py\n+++ b/two.py\n@@ -5,1 +5,1 @@\n+second\n"
    )
    files = _by_path(text)
    assert [a.text for a in files["one.py"].added] == ["first"]  # type: ignore[attr-defined]
    assert [(a.number, a.text) for a in files["two.py"].added] == [(5, "second")]  # type: ignore[attr-defined]


def test_plain_diff_without_git_header_and_timestamps() -> None:
    text = (
        "--- src/a.c\t2024-01-01 10:00:00\n+++ src/a.c\t2024-01-02 10:00:00\n"
        "@@ -3 +3,2 @@\n-int x;\n+int x = 0;\n+int y = 0;\n"
    )
    f = parse_diff(text).files[0]
    assert f.path == "src/a.c"
    assert [a.number for a in f.added] == [3, 4]


def test_quoted_path_crlf_and_no_newline_marker() -> None:
    text = (
        'diff --git "a/my dir/caf\\303\\251.py" "b/my dir/caf\\303\\251.py"\r\n'
        '--- "a/my dir/caf\\303\\251.py"\r\n+++ "b/my dir/caf\\303\\251.py"\r\n'
        "@@ -1 +1 @@\r\n-a\r\n\\ No newline at end of file\r\n+b\r\n"
    )
    f = parse_diff(text).files[0]
    assert f.path == "my dir/café.py"
    assert [(a.number, a.text) for a in f.added] == [(1, "b")]


def test_hunks_without_file_headers_use_the_default_path() -> None:
    f = parse_diff("@@ -1,1 +1,2 @@\n a\n+b\n", default_path="x/y.py").files[0]
    assert f.path == "x/y.py"
    assert [(a.number, a.text) for a in f.added] == [(2, "b")]


def test_plain_content_is_one_new_file_named_by_affected_files() -> None:
    content = "import os\n\nos.system(cmd)\n"
    assert not looks_like_diff(content)
    parsed = read_action(action(content, files=["tools/run.py"]))
    (f,) = parsed.files
    assert f.path == "tools/run.py"
    assert f.new_file
    assert [(a.number, a.text) for a in f.added] == [
        (1, "import os"),
        (2, ""),
        (3, "os.system(cmd)"),
    ]


def test_yaml_document_marker_is_not_a_diff() -> None:
    assert not looks_like_diff("---\nkey: value\n")
    assert looks_like_diff(new_file("a.py", "x = 1"))
    assert looks_like_diff(modify("a.py", "-x\n+y"))


def test_empty_and_none_code_diff_yield_no_files() -> None:
    assert read_action(action(None)).files == ()
    assert read_action(action("")).files == ()
    assert parse_diff("").files == ()


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.text(alphabet=st.sampled_from(list('+- @\\\n\tab0123,/:diffgt"\r')), max_size=400))
def test_never_raises_on_diff_shaped_garbage(text: str) -> None:
    parsed = parse_diff(text)
    assert parsed.error is None
    for f in parsed.files:
        assert all(a.number >= 0 for a in f.added)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_never_raises_on_any_text(text: str) -> None:
    assert parse_diff(text).error is None
    parse_diff(text, default_path="p.py")


_line = st.text(alphabet=st.characters(blacklist_characters="\n\r"), max_size=20)
_hunk = st.lists(st.tuples(st.sampled_from(["+", "-", " "]), _line), min_size=1, max_size=12)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 500), _hunk), min_size=1, max_size=4))
def test_added_lines_and_numbers_round_trip(hunks: list[tuple[int, list[tuple[str, str]]]]) -> None:
    """Any well-formed diff gives back exactly its added lines with their new numbers."""
    text = "diff --git a/f.py b/f.py\n--- a/f.py\n+++ b/f.py\n"
    expected: list[tuple[int, str]] = []
    start = 1
    for gap, lines in hunks:
        start += gap
        old = sum(1 for k, _ in lines if k in "- ")
        new = sum(1 for k, _ in lines if k in "+ ")
        text += f"@@ -{start},{old} +{start},{new} @@\n"
        n = start
        for kind, body in lines:
            text += f"{kind}{body}\n"
            if kind == "+":
                expected.append((n, body))
            if kind in "+ ":
                n += 1
        start = n
    (f,) = parse_diff(text).files
    assert [(a.number, a.text) for a in f.added] == expected
