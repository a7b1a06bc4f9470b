"""Where code comes from, read in any text (a command, a requirements file, a Gemfile, a
``go.mod``, a Dockerfile, a training script): a second package index added
(``--extra-index-url``: dependency confusion) or an index over plain HTTP or at a raw address;
gems from another source; a Go module replaced by another owner's; a model repository's own
code run (``trust_remote_code``, unless pinned to a commit) or a checkpoint unpickled whole
(``weights_only=False``); a file downloaded at build time and then run. Pure; each yields
``(offset, title, why)``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice

__all__ = ["SUPPLY_ANCHORS", "supply_risks"]

TextRisk = tuple[int, str, str]

SUPPLY_ANCHORS = (
    "index-url",
    "registry",
    "-i",
    "trust_remote_code",
    "weights_only",
    "add",
    "source",
    "=>",
)
"""Casefolded words every match of these patterns contains (``exposure_text`` runs them only
on a text naming one)."""


def supply_risks(text: str) -> Iterator[TextRisk]:
    """Every risk to where code comes from in ``text``."""
    yield from _index_widened(text)
    yield from _code_fetched(text)
    yield from _sources_swapped(text)


_EXTRA_INDEX = re.compile(r"(?i)(?:^|[\s\"'])--extra-index-url(?:[\s=]+)(\S+)")

_PLAIN_INDEX = re.compile(
    r"(?i)(?:^|[\s\"'])(?:--index-url|-i|--registry)(?:[\s=]+)(http://\S+|https?://\d[\d.]+\S*)"
)

_REMOTE_MODEL_CODE = re.compile(r"\btrust_remote_code\s*=\s*True\b")

_UNSAFE_WEIGHTS = re.compile(r"\bweights_only\s*=\s*False\b")

_ADD_URL = re.compile(r"(?im)^\s*ADD\s+(?!.*--checksum)(?:--\S+\s+)*(https?://\S+)\s+(\S+)\s*$")

_RUNS_LINE = re.compile(r"(?im)^\s*(?:RUN|ENTRYPOINT|CMD)\b.*$")

_PINNED = re.compile(r"\brevision\s*=\s*[\"'][0-9a-f]{40}[\"']")

_GEM_SOURCE = re.compile(r"(?m)^\s*source\s+[\"'](https?://[^\"']+)[\"']")

_MAX_ADDS = 200
"""``ADD`` lines read per text (a Dockerfile has a few)."""

_GO_REPLACE = re.compile(r"(?m)^\s*(?:replace\s+)?(\S+)(?:\s+v\S+)?\s*=>\s*(\S+)")


def _sources_swapped(text: str) -> Iterator[TextRisk]:
    for m in _GEM_SOURCE.finditer(text):
        url = m.group(1).lower()
        if url.startswith("http://") or not re.match(r"https://(?:rubygems\.org|gems\.)", url):
            if url.startswith("https://rubygems.org"):
                continue
            yield (
                m.start(),
                "installs gems from another source",
                (
                    f"`{m.group(1)[:80]}` is not rubygems.org"
                    + (" and is plain HTTP" if url.startswith("http://") else "")
                    + ": whoever serves it chooses every gem installed."
                ),
            )
            break
    for m in _GO_REPLACE.finditer(text):
        source, target = m.group(1), m.group(2)
        if target.startswith((".", "/")) or "/" not in source or "/" not in target:
            continue  # a local checkout: the developer's own code
        if source.split("/")[:2] != target.split("/")[:2]:
            yield (
                m.start(),
                "replaces a dependency with another module",
                (
                    f"`{source[:60]}` is built from `{target[:60]}`, another owner's code, "
                    "wherever the module is imported."
                ),
            )
            break


def _code_fetched(text: str) -> Iterator[TextRisk]:
    m = _REMOTE_MODEL_CODE.search(text)
    if m is not None and not _PINNED.search(text[max(0, m.start() - 300) : m.end() + 300]):
        yield (
            m.start(),
            "runs a model repository's own code (trust_remote_code)",
            (
                "`trust_remote_code=True` runs the Python the hub repository ships when the model "
                "loads: whoever controls that repository runs code here."
            ),
        )
    m = _UNSAFE_WEIGHTS.search(text)
    if m is not None:
        yield (
            m.start(),
            "loads a pickle that can run code (weights_only=False)",
            (
                "`weights_only=False` unpickles the whole checkpoint: a crafted file runs its own "
                "code when loaded."
            ),
        )
    adds = list(islice(_ADD_URL.finditer(text), _MAX_ADDS))
    runs = [(r.start(), r.group(0)) for r in _RUNS_LINE.finditer(text)] if adds else []
    for add in adds:  # the RUN lines are read once, not again after each ADD
        name = add.group(2).rstrip("/").rsplit("/", 1)[-1]
        if name and any(at >= add.end() and name in line for at, line in runs):
            yield (
                add.start(),
                "runs a file downloaded at build time",
                (
                    f"`{add.group(1)[:80]}` is fetched unverified (no `--checksum`) and then run: "
                    "whoever serves it chooses the code in every image."
                ),
            )
            break


def _index_widened(text: str) -> Iterator[TextRisk]:
    m = _EXTRA_INDEX.search(text)
    if m is not None:
        yield (
            m.start(),
            "adds a second package index (dependency confusion)",
            f"with `--extra-index-url {m.group(1)[:80]}`, a package name on both indexes "
            "installs whichever offers the higher version: anyone who publishes that name on "
            "the other index runs code here.",
        )
    m = _PLAIN_INDEX.search(text)
    if m is not None:
        yield (
            m.start(),
            "installs packages from an unverified index",
            f"`{m.group(1)[:80]}` is plain HTTP or a raw address: whoever sits on the path "
            "chooses the code installed.",
        )
