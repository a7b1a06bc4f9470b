"""One strict reader of input: content never becomes diff structure, a counted hunk is read as
``git apply`` reads it, nothing in a diff is dropped, and binary patches are decoded or
refused. Each hostile case fails on the old reader (which searched the whole text for a diff
marker and dropped what came before it)."""

from __future__ import annotations

import base64
import zlib

import pytest
from checks_helpers import action, new_file

from humangr.contracts import Outcome
from humangr.engine.checks import run_checks
from humangr.engine.checks.base import read_action
from humangr.engine.checks.diff import (
    content_diff,
    content_lines,
    looks_like_diff,
    parse_diff,
    read_input,
)
from humangr.engine.review import local_outcome

HOSTILE = (
    'AWS_ACCESS_KEY_ID = "AKIAIOSFODNN7EXAMPLE"\n'
    "from flask import request\n"
    "\n"
    "def run():\n"
    '    return eval(request.args["code"])\n'
    "\n"
    'NOTES = """\n'
    "{marker}\n"
    '"""\n'
)
"""Content whose hostile part comes before a diff marker: the old reader dropped it."""
MARKERS = {
    "hunk header": "@@ -1 +1 @@",
    "git header": "diff --git a/app.py b/app.py",
    "file header pair": "--- a/app.py\n+++ b/app.py",
    "plain diff header": "diff -u a/app.py b/app.py",
    "no newline marker": "\\ No newline at end of file",
}
# git diff --binary of app.py (marked binary in .gitattributes): a literal of the new content.
LITERAL = """diff --git a/app.py b/app.py
index 7d4290a..e676e08 100644
GIT binary patch
literal 82
zcmd1IEyyn_QOGamN-N6GRY=Q8EY4QQga{U;7M7+KmvE(|rYRJa=4ohJaVY>nQEEwP
aQJz9-Sz?X`REb_<QF?K-QnFI4CKmv|*Bm+k

literal 6
Ncmb<WuvIYR0ssXz0Wkmo

"""
DELTA = """diff --git a/big.py b/big.py
index 29e09f7..5ae5cf8 100644
GIT binary patch
delta 36
rcmZ2tu)|=(25#}xvcw#XqSV6D)Z!Ao#G>@#Xr*MOSk29wxeIv!1@{eU

delta 16
XcmdmCu*6`)25x2}1B1=SxeIv!HOmFR

"""
# A literal whose content is not text (random bytes and a NUL) for a .py file.
DATA = """diff --git a/app.py b/app.py
index 7d4290a..b2e5721 100644
GIT binary patch
literal 51
zcmZPz&JV5l!|m2!FBsA+^6T;jR`qJW^?C|<dvYQl9aIrvTz|c5f=gK@LuPJ4eo=`+
HelZsS2q6>#

literal 6
Ncmb<WuvIYR0ssXz0Wkmo

"""


def outcome(diff: str, files: list[str] | None = None, *, local_only: bool = False) -> Outcome:
    found = run_checks(action(diff, files=files), local_only=local_only)
    return local_outcome(found)[0]


@pytest.mark.parametrize("marker", list(MARKERS.values()), ids=list(MARKERS))
def test_content_with_a_diff_marker_is_read_whole(marker: str) -> None:
    content = HOSTILE.format(marker=marker)
    assert not looks_like_diff(content)
    f = read_action(action(content, files=["app.py"])).files[0]  # then any embedded diff
    assert f.path == "app.py"
    assert [a.text for a in f.added] == content_lines(content)
    assert outcome(content, ["app.py"]) is Outcome.REJECTED


@pytest.mark.parametrize("marker", list(MARKERS.values()), ids=list(MARKERS))
def test_content_mode_never_reads_a_diff_even_from_the_first_line(marker: str) -> None:
    content = marker + "\n" + HOSTILE.format(marker="x")
    (f,) = read_input(content, "content", "app.py").files
    assert [a.text for a in f.added] == content_lines(content)
    wrapped = content_diff("app.py", content)
    assert looks_like_diff(wrapped)
    assert outcome(wrapped) is Outcome.REJECTED


def test_a_diff_is_one_only_from_its_first_line() -> None:
    assert looks_like_diff(new_file("a.py", "x = 1"))
    assert looks_like_diff("\n\n@@ -1 +1 @@\n-a\n+b\n")
    assert not looks_like_diff("import os\n@@ -1 +1 @@\n-a\n+b\n")
    assert not looks_like_diff("text\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n+y\n")
    assert not looks_like_diff("---\nkey: value\n")
    assert read_input("import os\n", "diff").error is not None


def test_git_commit_header_is_read_as_text_before_the_diff() -> None:
    text = (
        "From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\n"
        "Subject: [PATCH] add\n\n---\n a.py | 1 +\n\n" + new_file("a.py", "x = 1") + "-- \n2.43.0\n"
    )
    assert looks_like_diff(text)
    files = parse_diff(text).files
    assert [f.path for f in files] == ["a.py", "<commit message>"]
    assert not any(f.stray for f in files)


def test_a_file_header_inside_a_counted_hunk_is_hunk_lines_as_git_applies_it() -> None:
    # git apply writes the eval into app.py: the ---/+++ pair is a removed and an added line
    # of the first hunk, whose counts hold. The old reader started a file notes.md there.
    diff = (
        "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n"
        "@@ -1,2 +1,2 @@\n x = 1\n--- a/notes.md\n+++ b/notes.md\n"
        "@@ -2,0 +3,3 @@\n+from flask import request\n+def run():\n"
        '+    return eval(request.args["c"])\n'
    )
    (f,) = parse_diff(diff).files
    assert f.path == "app.py"
    assert f.added[0].text == "++ b/notes.md"
    assert outcome(diff) is Outcome.REJECTED


def test_lines_outside_the_diff_structure_are_read_not_dropped() -> None:
    hidden = HOSTILE.format(marker="x")
    diff = "@@ -1 +1 @@\n-a = 1\n+a = 2\n" + hidden
    files = read_action(action(diff, files=["app.py"])).files
    assert [f.stray for f in files] == [False, True]
    assert [a.text for a in files[1].added] == content_lines(hidden)
    assert outcome(diff, ["app.py"]) is Outcome.REJECTED
    prose = "@@ -1 +1 @@\n-a = 1\n+a = 2\nThis is a note, not code.\n"
    assert outcome(prose, ["app.py"]) is Outcome.APPROVED
    assert outcome(prose, ["app.py"], local_only=True) is Outcome.NEEDS_REVIEW


def test_a_lone_carriage_return_ends_a_content_line() -> None:
    content = 'x = 1  # ok\rAWS_ACCESS_KEY_ID = "AKIAIOSFODNN7EXAMPLE"\r\ny = 2\n'
    (f,) = read_input(content, "content", "app.py").files
    assert [(a.number, a.text) for a in f.added] == [
        (1, "x = 1  # ok"),
        (2, 'AWS_ACCESS_KEY_ID = "AKIAIOSFODNN7EXAMPLE"'),
        (3, "y = 2"),
    ]


def test_a_binary_literal_of_a_text_file_is_decoded_and_reviewed() -> None:
    (f,) = parse_diff(LITERAL).files
    assert f.binary_patch is not None
    assert f.binary_patch.kind == "text"
    assert not f.binary
    assert f.added[-1].text == '    return eval(request.args["c"])'
    found = run_checks(action(LITERAL))
    assert outcome(LITERAL) is Outcome.REJECTED
    assert any(f.title == "Text file sent as a binary patch" for fs in found.values() for f in fs)


@pytest.mark.parametrize("diff", [DELTA, DATA], ids=["delta", "not text"])
def test_an_unreadable_binary_patch_of_a_text_file_is_critical(diff: str) -> None:
    assert outcome(diff) is Outcome.REJECTED
    titles = {f.title for fs in run_checks(action(diff)).values() for f in fs}
    assert "Unreadable binary patch of a text file" in titles


def test_a_corrupt_binary_patch_is_refused_and_a_bomb_is_not_inflated() -> None:
    corrupt = LITERAL.replace("zcmd1IEyyn", "zcmd1IEyym")
    (f,) = parse_diff(corrupt).files
    assert f.binary_patch is not None
    assert f.binary_patch.kind == "corrupt"
    assert outcome(corrupt) is Outcome.REJECTED
    bomb = LITERAL.replace("literal 82", "literal 999999999999")
    (g,) = parse_diff(bomb).files
    assert g.binary_patch is not None
    assert g.binary_patch.kind == "corrupt"
    assert "left to decode" in g.binary_patch.problem


def test_a_binary_image_is_no_finding_but_is_not_reviewed_without_an_llm() -> None:
    image = DELTA.replace("big.py", "logo.png")
    assert outcome(image) is Outcome.APPROVED
    assert outcome(image, local_only=True) is Outcome.NEEDS_REVIEW


def git_literal(path: str, data: bytes) -> str:
    """A ``GIT binary patch`` literal of ``data`` for ``path``, as git writes it."""
    packed = zlib.compress(data)
    lines = []
    for k in range(0, len(packed), 52):
        chunk = packed[k : k + 52]
        head = (
            chr(ord("A") + len(chunk) - 1) if len(chunk) <= 26 else chr(ord("a") + len(chunk) - 27)
        )
        lines.append(head + base64.b85encode(chunk, pad=True).decode())
    body = "\n".join(lines)
    return (
        f"diff --git a/{path} b/{path}\nnew file mode 100644\nindex 0000000..1111111\n"
        f"GIT binary patch\nliteral {len(data)}\n{body}\n\nliteral 0\nHcmV?d00001\n\n"
    )


def test_the_literals_of_one_diff_inflate_within_one_budget() -> None:
    small = git_literal("ok.py", b"x = 1\n")
    (f,) = parse_diff(small).files
    assert [a.text for a in f.added] == ["x = 1"]
    big = b"\0" * 600_000
    diff = git_literal("a.py", big) + git_literal("b.py", big.replace(b"\0", b"\n"))
    first, second = parse_diff(diff).files
    assert first.binary_patch is not None
    assert first.binary_patch.kind == "data"
    assert second.binary_patch is not None
    assert second.binary_patch.kind == "corrupt"
    assert "left to decode" in second.binary_patch.problem
    assert outcome(diff) is Outcome.REJECTED


EVAL_DIFF = (
    "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1,1 +1,4 @@\n x = 1\n"
    '+from flask import request\n+def run():\n+    return eval(request.args["c"])\n'
)


def test_a_diff_after_leading_text_is_read_as_well_as_the_content() -> None:
    # A patch tool skips the leading text and applies the diff: both readings are reviewed.
    text = "Here is the patch you asked for:\n\n" + EVAL_DIFF
    files = read_action(action(text, files=["notes.txt"])).files
    assert [f.path for f in files] == ["notes.txt", "app.py"]
    assert outcome(text, ["notes.txt"]) is Outcome.REJECTED


def test_a_diff_quoted_in_python_content_is_no_false_alarm() -> None:
    content = 'DOC = """\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"""\n\n\ndef f():\n    return DOC\n'
    assert outcome(content, ["tests/test_doc.py"], local_only=True) is Outcome.APPROVED


def test_a_patch_argument_is_read_as_a_patch_tool_applies_it() -> None:
    from humangr.contracts import ActionContext, ToolCall

    patch = "Apply this:\n" + EVAL_DIFF
    call = ToolCall(name="apply_patch", arguments={"patch": patch})
    a = ActionContext(agent_id="a", action_type="tool_call", action_description="p", tool_call=call)
    assert local_outcome(run_checks(a))[0] is Outcome.REJECTED
