"""The shell variables a script sets and how its words read with them: literal assignments
followed in order (``F=/etc/shadow; cat $F``), values printed by a substitution, variables
loaded from a credential, and an unquoted ``$cmd`` split into its words."""

from __future__ import annotations

import re

from .shell_feeds import decoded_pipeline, echoed, secret_source, secret_text
from .shell_model import Cmd, Program, Simple
from .shell_names import WHOLE_SUB, plain_params
from .shell_params import ARRAY_WORD, array_value, defaulted

__all__ = ["assign", "resolve", "split_var"]

_VAR = re.compile(r"\$\{(\w+|[@*])\}|\$(?:E|env):(\w+)|\$(\w+|[@*])")
_WHOLE_VAR = re.compile(r"^\$(?:\{(?:\w+|[@*])\}|\w+|[@*])$")
_DECLARE = frozenset({"export", "declare", "local", "readonly", "typeset"})


def split_var(word: str, value: str) -> list[str]:
    """The words an unquoted ``$cmd`` becomes (its value split on blanks); any other word
    stays one."""
    whole = _WHOLE_VAR.match(word) or ARRAY_WORD.match(word)
    if value != word and whole and len(value.split()) > 1:
        return value.split()[:64]
    return [value]


def resolve(word: str, env: dict[str, str]) -> str:
    """``word`` with the variables ``env`` knows put in (``$F``, ``${F}``, ``$env:F``)."""
    if "$" not in word:
        return word
    word = plain_params(defaulted(word, env))
    if not env:
        return word
    return _VAR.sub(lambda m: env.get(m.group(1) or m.group(2) or m.group(3), m.group(0)), word)


def assign(simple: Simple, cmd: Cmd | None, env: dict[str, str], prog: Program) -> None:
    """Follow the literal assignments of ``simple``; a value printed by its substitution
    (``c=$(printf '\\x72\\x6d')``) is known too, and a variable loaded from a credential
    (``k=$(cat ~/.ssh/id_rsa)``, a ``for`` loop over one) is remembered as secret."""
    pairs = list(simple.assigns) if not simple.words else []
    if simple.words and simple.words[0] in _DECLARE:
        pairs = [tuple(w.split("=", 1)) for w in simple.words[1:] if "=" in w]  # type: ignore[misc]
    subs = [inner for kind, word, inner in (cmd.subs if cmd else []) if kind == "$" and word < 0]
    for key, value in pairs:
        if "$(" in value or "`" in value:
            env.pop(key, None)
            if any(secret_source(c) for inner in subs for c in inner) or secret_text(value):
                prog.secret_vars.add(key)
            one = subs[0] if len(subs) == 1 and len(pairs) == 1 and WHOLE_SUB.match(value) else []
            text = echoed(one[0]) if len(one) == 1 and not one[0].subs else None
            text = decoded_pipeline(one) if text is None else text
            if text is not None and "\n" not in text.strip():
                env[key] = text.strip()
        else:
            env[key] = resolve(array_value(value), env)
