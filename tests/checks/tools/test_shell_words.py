"""What a shell makes of words before it runs them: ``$IFS`` for blanks, brace expansions of
plain words, parameter operators, and what ``printf`` prints — each bounded."""

from __future__ import annotations

import pytest

from humangr.engine.checks.tools.shell_feeds import printed
from humangr.engine.checks.tools.shell_names import expanded, plain_params


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["rm${IFS}-rf${IFS}/"], ["rm", "-rf", "/"]),
        (["cat$IFS$9/etc/passwd"], ["cat", "/etc/passwd"]),
        (["{rm,-rf,/}"], ["rm", "-rf", "/"]),
        (["ls", "/{etc,usr}/x"], ["ls", "/etc/x", "/usr/x"]),
        (["curl", '{"a":1,"b":2}'], ["curl", '{"a":1,"b":2}']),
        (["awk", "{print $1, $2}"], ["awk", "{print $1, $2}"]),
        (["echo", "$IFSX"], ["echo", "$IFSX"]),
    ],
)
def test_words_as_the_shell_makes_them(argv: list[str], words: list[str]) -> None:
    assert expanded(argv) == words


def test_expansion_is_bounded() -> None:
    argv = ["x{" + ",".join(str(n) for n in range(1_000)) + "}"] * 10
    assert len(expanded(argv)) <= 256


@pytest.mark.parametrize(
    ("word", "plain"),
    [
        ("${HOME:?}", "${HOME}"),
        ("${HOME:?unset}/x", "${HOME}/x"),
        ("${DIR:-/tmp}", "${DIR}"),
        ("${X=1}", "${X}"),
        ("${HOME}", "${HOME}"),
        ("${#PATH}", "${#PATH}"),
    ],
)
def test_parameter_operators_leave_the_variable(word: str, plain: str) -> None:
    assert plain_params(word) == plain


@pytest.mark.parametrize(
    ("fmt", "args", "text"),
    [
        ("rm -rf %s", ["/etc"], "rm -rf /etc"),
        ("\\x63\\x75\\x72\\x6c", [], "curl"),
        ("%s-%s", ["a"], "a-"),
        ("100%%", [], "100%"),
        ("%5.2f|%d", ["1", "2"], "1|2"),
    ],
)
def test_what_printf_prints(fmt: str, args: list[str], text: str) -> None:
    assert printed(fmt, args) == text
