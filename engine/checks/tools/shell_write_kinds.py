"""More of what a shell command writes (for ``shell_rules_writes``): in-place edits whose
``-i`` sits in a cluster of short options (``perl -pi -e``, ``perl -0777 -pi``, ``ruby -i
-pe``, ``sed -Ei``), ``patch FILE``, the folders archives are unpacked into (``unzip -d``,
``7z x -oDIR``, ``tar -C``), and the kinds of target the file tools already judge: a CI
workflow (it runs with the repository's secrets on the next push) and the SSH folder itself
(a copy into it can place ``authorized_keys`` or ``config``). Pure, bounded."""

from __future__ import annotations

import re

from .shell_model import Cmd

__all__ = ["CI_WORKFLOW", "KEY_FOLDER", "extra_targets", "in_place"]

CI_WORKFLOW = re.compile(
    r"(?:^|/)(?:\.github/workflows/[^/]+\.ya?ml|\.gitlab-ci\.ya?ml|\.circleci/config\.ya?ml|"
    r"bitbucket-pipelines\.ya?ml|azure-pipelines\.ya?ml|Jenkinsfile|\.github/workflows/?|"
    r"\.(?:husky|githooks)/(?!_/)[^/]+)$"
)
"""A CI definition (it runs on the next push, with the repository's secrets), or a hook kept
in the repository (husky, a ``core.hooksPath`` folder: it runs on the next commit)."""
KEY_FOLDER = re.compile(r"(?:^|/)\.ssh/?$")
"""The SSH folder as a target: whatever lands in it may be ``authorized_keys`` or ``config``."""
_TAKES_REST = frozenset("eEMmIxdDlC0F")
"""Perl's and Ruby's short options that take the rest of their cluster as a value."""


def in_place(cmd: Cmd) -> bool:
    """``cmd`` edits its files in place: ``-i`` alone or inside a cluster of short options
    (``-pi``, ``-i.bak``, ``-Ei``), or ``--in-place``."""
    for word in cmd.argv[1:64]:
        if word == "--in-place" or word.startswith("--in-place="):
            return True
        if not word.startswith("-") or word.startswith("--"):
            continue
        for ch in word[1:]:
            if ch == "i":
                return True
            if ch in _TAKES_REST or (cmd.name == "sed" and ch in "ef"):
                break
    return False


def extra_targets(cmd: Cmd) -> list[str]:
    """Files and folders ``cmd`` writes that ``write_targets`` does not list: ``patch
    FILE``, ``unzip … -d DIR``, ``7z x … -oDIR``, ``tar x … -C DIR``."""
    argv = cmd.argv[:256]
    out: list[str] = []
    if cmd.name == "patch":
        plain = [w for w in argv[1:] if not w.startswith("-")]
        out.extend(plain[:1])
    elif cmd.name == "unzip":
        out.extend(argv[i + 1] for i, w in enumerate(argv[:-1]) if w == "-d")
    elif cmd.name in ("7z", "7za", "7zr"):
        out.extend(w[2:] for w in argv[1:] if w.startswith("-o") and len(w) > 2)
    elif cmd.name in ("tar", "bsdtar"):
        out.extend(argv[i + 1] for i, w in enumerate(argv[:-1]) if w in ("-C", "--directory"))
        out.extend(w.split("=", 1)[1] for w in argv[1:] if w.startswith("--directory="))
    return out
