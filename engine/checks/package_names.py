"""Package names one slip away from a popular one (``reqeusts``, ``lodahs``,
``djangorestframwork``): the typosquats that run their author's code at install time.

A name is a near miss when it is not itself a popular name and one edit (a letter added,
dropped, changed, or two neighbours swapped; ``-``, ``_`` and ``.`` are the same) turns it
into one of at least five letters. Names are read from install commands (``pip install``,
``npm i``, ``yarn add``, ``poetry add``, ``gem install``, ``cargo add``…) in any text, from the
lines of a requirements file and from the dependencies of a ``package.json``. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from .package_popular import POPULAR

__all__ = ["near_miss", "typosquats"]

_MIN_LENGTH = 5
_INSTALL = re.compile(
    r"(?i)\b(?:pip3?|uv\s+pip|python3?\s+-m\s+pip|pipx|pipenv|conda|mamba)\s+install\b"
    r"|\b(?:uv|poetry|pdm|yarn|pnpm|bun|cargo)\s+add\b"
    r"|\b(?:npm|pnpm|bun)\s+(?:install|i|add)\b|\bnpx\s+(?!-)|\bgem\s+install\b"
)
_END = re.compile(r"[;&|\n)`]|$")
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?:[=<>!~;@]|$)")
_NPM_DEPENDENCY = re.compile(r'^\s*"((?:@[\w.-]+/)?[\w.-]+)"\s*:\s*"(?:[\^~<>=*]|\d|latest)')
_VERSION = re.compile(r"(?:[=<>!~]=?|@(?=[\d^~*]|latest)).*$")


def _fold(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name.lower())


_FOLDED = frozenset(_fold(n) for n in POPULAR)
_BY_LENGTH: dict[int, list[str]] = {}
for _name in _FOLDED:
    if len(_name) >= _MIN_LENGTH:
        _BY_LENGTH.setdefault(len(_name), []).append(_name)


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` becomes ``b`` by one insertion, deletion, change or swap of neighbours."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        return (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long[i]:
        i += 1
    return short[i:] == long[i + 1 :]


def near_miss(name: str) -> str | None:
    """The popular name ``name`` is one slip away from, if it is not popular itself."""
    folded = _fold(name.split("/")[-1] if name.startswith("@") else name)
    full = _fold(name)
    if full in _FOLDED or folded in _FOLDED or len(folded) < _MIN_LENGTH - 1:
        return None
    for size in (len(folded) - 1, len(folded), len(folded) + 1):
        for popular in _BY_LENGTH.get(size, ()):
            if _one_edit(folded, popular):
                return popular
    return None


def _installed(text: str) -> Iterator[tuple[int, str]]:
    for m in _INSTALL.finditer(text):
        end = _END.search(text, m.end())
        stop = end.start() if end is not None else len(text)
        offset = m.end()
        for word in text[m.end() : stop].split():
            start = text.find(word, offset)
            offset = start + len(word)
            word = word.strip("\"'")
            if not word or word.startswith(("-", ".", "/", "$", "~")) or "://" in word:
                continue
            name = _VERSION.sub("", word) if not word.startswith("@") else word
            if name.startswith("@") and name.count("@") > 1:
                name = name[: name.index("@", 1)]
            yield start, name


def _listed(text: str, path: str) -> Iterator[tuple[int, str]]:
    base = path.rsplit("/", 1)[-1].lower()
    offset = 0
    requirements = base.startswith(("requirements", "constraints")) and base.endswith(
        (".txt", ".in")
    )
    for line in text.split("\n"):
        if requirements:
            m = _REQUIREMENT.match(line)
            if m is not None:
                yield offset + m.start(1), m.group(1)
        elif base == "package.json":
            m = _NPM_DEPENDENCY.match(line)
            if m is not None:
                yield offset + m.start(1), m.group(1)
        offset += len(line) + 1


def typosquats(text: str, path: str | None = None) -> Iterator[tuple[int, str, str]]:
    """``(offset, title, why)`` for each near-miss name installed by a command in ``text`` or
    listed by it as the file ``path`` (a requirements file, a ``package.json``)."""
    found: Iterable[tuple[int, str]] = _installed(text)
    if path:
        found = [*found, *_listed(text, path)]
    seen: set[str] = set()
    for offset, name in found:
        popular = near_miss(name)
        if popular is None or name in seen:
            continue
        seen.add(name)
        yield (
            offset,
            "installs a look-alike of a popular package (typosquat)",
            f"`{name}` is one letter away from `{popular}`: typosquatted packages run their "
            "author's code when installed.",
        )
