"""Who may sign in to the review inbox: reviewer tokens, each naming one reviewer.

A tokens file (``--tokens FILE``) or ``HUMANGR_INBOX_TOKENS`` holds one reviewer per line: the
token, white space, then the reviewer's name (the rest of the line). Blank lines and lines
starting with ``#`` are comments. In the environment, ``;`` also separates entries::

    # humangr inbox: token, then the reviewer's name (resolved_by)
    kVx1c4Qm0p9m2Jd7sYQe3w8zA5tB6nL1  alice
    Yt3r0fWq8sN2bV6xC1mZ4kP7hG9jD5aE  Bob Martin

A token is 32 to 256 characters of letters, digits and ``-._~+/=`` that look random: at least
128 bits by ``estimated_bits`` (a run or a repeat of characters, a short alphabet or a
predictable sequence counts for little); ``python -c "import secrets;
print(secrets.token_urlsafe(32))"`` makes one. A weak token is refused when the inbox starts,
never just warned about: a guessable token is a reviewer's signature. The same token twice is
an error; a file that other users may read or write, or its group may write, is refused.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from humangr.engine.errors import ConfigError

__all__ = [
    "ENV_TOKENS",
    "MAX_TOKENS_BYTES",
    "MIN_TOKEN_BITS",
    "Reviewers",
    "estimated_bits",
    "load_reviewers",
    "parse_tokens",
]

ENV_TOKENS = "HUMANGR_INBOX_TOKENS"
MAX_TOKENS_BYTES = 65_536
MAX_NAME = 128
_TOKEN = re.compile(r"[A-Za-z0-9\-._~+/=]{32,256}")
MIN_TOKEN_BITS = 128
_MAKE_ONE = '`python -c "import secrets; print(secrets.token_urlsafe(32))"`'


def estimated_bits(token: str) -> float:
    """A cautious estimate of the entropy of ``token``, in bits.

    Each character counts for what is left of it once the text before it is known: nothing for
    a character that repeats the one before or continues a run (``aaaa``, ``1234``, ``abcd``),
    else the bits of its share of the token (its empirical entropy), never more than the
    bits of the alphabet the token draws from. A random token of ``token_urlsafe(32)`` scores
    about 200; twenty ``a``, a word, or a keyboard walk score far below 128.
    """
    if not token:
        return 0.0
    pool = 0
    for chars, size in (
        (str.islower, 26),
        (str.isupper, 26),
        (str.isdigit, 10),
        (lambda c: not c.isalnum(), 7),
    ):
        if any(chars(c) for c in token):
            pool += size
    counts: dict[str, int] = {}
    for c in token:
        counts[c] = counts.get(c, 0) + 1
    n = len(token)
    per_char = -sum(k / n * math.log2(k / n) for k in counts.values())
    per_char = min(per_char, math.log2(pool))
    kept = 1
    for i in range(1, n):
        run = abs(ord(token[i]) - ord(token[i - 1])) <= 1
        repeat = i >= 2 and token[i - 2 : i + 1] in token[:i]  # a trigram seen before
        if not run and not repeat:
            kept += 1
    return kept * per_char


def _weak(token: str) -> str | None:
    """Why ``token`` is too weak to sign in with, else ``None`` (never shows the token)."""
    bits = estimated_bits(token)
    if bits < MIN_TOKEN_BITS:
        return f"about {bits:.0f} bits, fewer than {MIN_TOKEN_BITS}: it could be guessed"
    return None


@dataclass(frozen=True, slots=True)
class Reviewers:
    """The reviewers who may sign in, by the sha256 of their token."""

    entries: tuple[tuple[bytes, str], ...]
    source: str

    def who(self, token: str) -> str | None:
        """The reviewer ``token`` names, else ``None``; every entry is compared, in constant
        time, whatever matches."""
        digest = hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()
        found: str | None = None
        for known, name in self.entries:
            if hmac.compare_digest(digest, known):
                found = name
        return found

    @property
    def names(self) -> list[str]:
        """The reviewers' names, each once, in file order."""
        return list(dict.fromkeys(name for _, name in self.entries))


def _name(raw: str, where: str) -> str:
    name = raw.strip()
    if not name:
        raise ConfigError(f"{where}: a token without a reviewer name; write `TOKEN NAME`")
    if len(name) > MAX_NAME or not name.isprintable():
        raise ConfigError(f"{where}: the reviewer name must be 1-{MAX_NAME} printable characters")
    return name


def parse_tokens(text: str, source: str, *, separators: str = "\n") -> Reviewers:
    """The reviewers of ``text`` (the tokens format above); ``source`` names it in errors,
    which never show a token."""
    for sep in separators[1:]:
        text = text.replace(sep, separators[0])
    entries: list[tuple[bytes, str]] = []
    seen: dict[bytes, int] = {}
    for number, line in enumerate(text.split(separators[0]), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        where = f"{source}: entry {number}"
        token, *rest = stripped.split(maxsplit=1)
        if not _TOKEN.fullmatch(token):
            raise ConfigError(
                f"{where}: a token is 32-256 letters, digits or -._~+/= (make one with {_MAKE_ONE})"
            )
        weak = _weak(token)
        if weak is not None:
            raise ConfigError(
                f"{where}: the token is too weak ({weak}); make a random one with {_MAKE_ONE}"
            )
        digest = hashlib.sha256(token.encode()).digest()
        if digest in seen:
            raise ConfigError(f"{where}: the same token as entry {seen[digest]}; give each its own")
        seen[digest] = number
        entries.append((digest, _name(rest[0] if rest else "", where)))
    if not entries:
        raise ConfigError(f"{source}: no reviewer tokens; write one `TOKEN NAME` per line")
    return Reviewers(tuple(entries), source)


def _read_file(path: Path) -> str:
    try:
        info = path.stat()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the tokens file: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"{path}: the tokens file is not a regular file")
    if info.st_mode & (stat.S_IRWXO | stat.S_IWGRP):
        raise ConfigError(
            f"{path}: the tokens file is open to other users (mode {stat.S_IMODE(info.st_mode):o});"
            f" make it private: chmod 600 {path}"
        )
    if info.st_size > MAX_TOKENS_BYTES:
        raise ConfigError(
            f"{path}: the tokens file has {info.st_size:,} bytes; the limit is {MAX_TOKENS_BYTES:,}"
        )
    try:
        return path.read_bytes()[: MAX_TOKENS_BYTES + 1].decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: the tokens file is not UTF-8 text") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the tokens file: {exc.strerror or exc}") from None


def load_reviewers(path: str | None, environ: Mapping[str, str] | None = None) -> Reviewers:
    """The reviewers of ``--tokens FILE`` if given, else of ``HUMANGR_INBOX_TOKENS``; a
    ``ConfigError`` if there are none (nobody could sign in)."""
    env = os.environ if environ is None else environ
    if path is not None:
        return parse_tokens(_read_file(Path(path)), str(path))
    text = env.get(ENV_TOKENS)
    if text is None or not text.strip():
        raise ConfigError(
            f"the inbox needs reviewers: give --tokens FILE (one `TOKEN NAME` per line, chmod "
            f"600) or set {ENV_TOKENS}"
        )
    if len(text.encode("utf-8", "surrogatepass")) > MAX_TOKENS_BYTES:
        raise ConfigError(f"{ENV_TOKENS} is longer than {MAX_TOKENS_BYTES:,} bytes")
    return parse_tokens(text, ENV_TOKENS, separators="\n;")
