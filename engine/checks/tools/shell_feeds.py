"""Literal text that commands pass on: what ``echo``/``printf``/``cat <<EOF`` feed to the
next command or write to a file, and the strings inside JSON written that way."""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Sequence

from .shell_decode import MAX_LITERAL, b64_text, hex_text
from .shell_lex import ansi_c
from .shell_model import Cmd
from .shell_paths import is_secret

__all__ = [
    "SECRET_STORES",
    "decoded_pipeline",
    "echoed",
    "json_strings",
    "printed",
    "record_write",
    "secret_source",
    "secret_text",
]


def json_strings(content: str) -> list[str] | None:
    """The string values of JSON content (``package.json`` scripts), or None if not JSON."""
    stripped = content.strip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        data = json.loads(stripped)
    except ValueError:
        return None
    out: list[str] = []
    todo = [data]
    while todo and len(out) < 64:
        item = todo.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return out


def echoed(cmd: Cmd) -> str | None:
    if cmd.name == "echo":
        words = cmd.argv[1:]
        escapes = any(re.match(r"^-[nE]*e[neE]*$", w) for w in words[:2])
        text = " ".join(w for w in words if not re.match(r"^-[neE]+$", w))
        return ansi_c(text) if escapes else text
    if cmd.name == "printf" and len(cmd.argv) > 1 and cmd.argv[1] != "-v":
        return printed(cmd.argv[1], cmd.argv[2:])
    return cmd.stdin if cmd.name == "cat" and len(cmd.argv) == 1 else None


def record_write(cmd: Cmd, writes: dict[str, str]) -> None:
    content = echoed(cmd) if cmd.name in ("echo", "printf", "cat") else None
    targets = [
        r.target for r in cmd.redirects if r.op in (">", ">>", ">|", "&>") and r.fd in (None, 1)
    ]
    if cmd.name == "tee" and cmd.stdin is not None:
        content, targets = cmd.stdin, [w for w in cmd.argv[1:] if not w.startswith("-")]
    if content is None:
        return
    for target in targets:
        if len(writes) < 64:
            writes[target] = (writes.get(target, "") + "\n" + content)[-65_536:]


_SPEC = re.compile(r"%[-+ #0]*\d*(?:\.\d+)?([sbdiouxXcqfeEgG%])")


def printed(fmt: str, args: list[str]) -> str:
    """What ``printf fmt args…`` prints: each conversion takes the next argument (none left:
    empty), the format is used again while arguments remain, and escapes are read
    (``\\x72\\155`` → ``rm``)."""
    fmt, args = fmt[:4_000], args[:64]
    taken = 0

    def one(m: re.Match[str]) -> str:
        nonlocal taken
        if m.group(1) == "%":
            return "%"
        taken += 1
        return args[taken - 1] if taken <= len(args) else ""

    out = _SPEC.sub(one, fmt)
    while 0 < taken < len(args) and len(out) < 16_000:  # the format is used again for the rest
        out += _SPEC.sub(one, fmt)
    return ansi_c(out)


SECRET_STORES = re.compile(
    r"^(?:vault\s+(?:kv\s+get|read)\b|az\s.*\bkeyvault\s+secret\s+(?:show|download)\b"
    r"|gcloud\s.*\bsecrets\s+versions\s+access\b|aws\s.*\bsecretsmanager\s+"
    r"get-secret-value\b|aws\s.*\bssm\s+get-parameters?\b.*--with-decryption"
    r"|kubectl\s.*\bget\s+secrets?\b.*(?:-o|--output)[=\s]*(?:yaml|json|jsonpath|go-template)"
    r"|gh\s+auth\s+token\b|gcloud\s.*\bauth\s+print-(?:access|identity)-token\b"
    r"|az\s.*\baccount\s+get-access-token\b)"
)
"""Commands that print a secret store's value or a CLI's token (as a command line)."""
_SECRET_COMMANDS = re.compile(
    rf"{SECRET_STORES.pattern}|^aws\s.*\b(?:iam\s+create-access-key|sts\s+get-session-token)"
)
"""What prints a credential: a secret store or token, or new cloud keys."""


def secret_source(cmd: Cmd) -> bool:
    """Whether ``cmd`` prints a credential: reads a credential file, or asks a secret store or
    a cloud for a secret or a token."""
    if any(is_secret(w) for w in cmd.argv[1:] if not w.startswith("-")):
        return True
    return bool(_SECRET_COMMANDS.match(" ".join(cmd.argv)[:2_000]))


_WORD = re.compile(r"[^\s|;&()`$<>\"']+")


def secret_text(text: str) -> bool:
    """Whether the commands written in ``text`` (a substitution as written) print a credential:
    a credential file named among its words, or a secret store asked."""
    inner = text[:2_000]
    if any(is_secret(w) for w in _WORD.findall(inner) if not w.startswith("-")):
        return True
    return any(_SECRET_COMMANDS.match(part.strip()) for part in re.split(r"[|;&]|\$\(", inner))


def _tr_rot13(argv: Sequence[str]) -> bool:
    sets = [a.replace("'", "") for a in argv[1:] if not a.startswith("-")]
    return (
        len(sets) == 2
        and sets[0] in ("A-Za-z", "a-zA-Z")
        and sets[1].startswith(("N-ZA-Mn-za-m", "n-za-mN-ZA-M"))
    )


def _transform(cmd: Cmd, text: str) -> str | None:
    """What one stage of a decoding pipeline prints for ``text``, or None when it is not one
    this reading knows."""
    flags = {a for a in cmd.argv[1:] if a.startswith("-")}
    if cmd.name == "base64" and flags & {"-d", "--decode", "-D", "-di", "-id"}:
        return b64_text(text)
    if cmd.name == "xxd" and "-r" in flags and flags & {"-p", "-ps", "-plain"}:
        return hex_text(text)
    if cmd.name == "rev" and not cmd.argv[1:]:
        return "\n".join(line[::-1] for line in text.split("\n"))
    if cmd.name == "tr" and _tr_rot13(cmd.argv):
        return codecs.decode(text, "rot13")
    return None


def decoded_pipeline(stages: Sequence[Cmd]) -> str | None:
    """The output of a substitution's commands when they are a literal (``echo``, ``printf``,
    a here-string) piped through decoders only; None otherwise."""
    if not 1 <= len(stages) <= 6 or any(c.subs for c in stages):
        return None
    text, rest = echoed(stages[0]), stages[1:]
    if text is None and stages[0].stdin is not None:  # ``base64 -d <<< …``: its own input
        text, rest = stages[0].stdin, stages
    if text is None or len(text) > MAX_LITERAL or not rest:
        return None
    text = text.strip()
    for cmd in rest:
        decoded = _transform(cmd, text)
        if decoded is None:
            return None
        text = decoded.strip()
    return text
