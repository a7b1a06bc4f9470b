"""Data streamed to another machine through a remote shell: an archive or a dump piped into
``ssh host 'cat > file'`` (or ``dd of=``, ``tar x``), the copy ``scp`` would make without
naming a file. The host is another machine unless it is one of ``allowed_hosts``."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .shell_binaries import DATABASE_DUMPS
from .shell_catalogue import words
from .shell_model import Cmd
from .shell_rule_kit import Context, Flag, high, operands, piped, rule
from .shell_rules_net import allowed, fed

__all__ = ["streamed_away"]

_SSH_VALUED = words("-p -i -l -o -J -F -b -c -D -E -e -L -m -O -Q -R -S -W -w -B -P")
_ARCHIVERS = words("tar zip 7z 7za gzip pigz zstd xz bzip2 cpio rar cat dd find")
_WRITES = re.compile(r"(?:^|[\s;&|])(?:cat\s*>>?|dd\s+[^|;]*\bof=|tar\s+-?\w*x|tee\s)|>\s*\S")
"""A remote command that stores its standard input (``cat > f``, ``dd of=f``, ``tar x``)."""


def _host(argv: list[str]) -> tuple[str, list[str]] | None:
    """The host ``ssh`` logs into and the remote command's words."""
    ops = operands(argv, _SSH_VALUED)
    if not ops:
        return None
    host = ops[0].rsplit("@", 1)[-1].split(":", 1)[0].lower()
    return host, ops[1:]


def _source(cmd: Cmd) -> str | None:
    """What the commands feeding ``cmd`` send: an archive of a folder or a database dump."""
    for up in fed(cmd):
        if up.name in DATABASE_DUMPS:
            return f"the output of {up.name}"
        if up.name in _ARCHIVERS:
            paths = [w for w in operands(up.argv) if w.startswith(("/", "~", "$HOME", "."))]
            if paths:
                return f"{', '.join(paths[:3])} (read by {up.name})"
    return None


@rule
def streamed_away(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """An archive or dump piped through ``ssh`` into a file on another machine."""
    if cmd.name not in ("ssh", "dbclient", "plink") or not cmd.upstream:
        return
    found = _host(cmd.argv)
    if found is None:
        return
    host, remote = found
    if not remote or allowed(host, ctx) or host in ("localhost", "127.0.0.1", "::1"):
        return
    if not _WRITES.search(" ".join(remote)):
        return
    what = _source(cmd)
    if what is not None:
        yield high(
            "streams data to another machine",
            piped(cmd),
            f"{what} is written to a file on {host} through ssh, outside this machine.",
            "Check that this data may leave and where it goes (add the host to allowed_hosts "
            "if it is meant).",
        )
