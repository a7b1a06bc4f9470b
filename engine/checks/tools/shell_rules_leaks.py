"""Rules about work lost or leaked by tools the other families do not read: version-control
history destroyed outside git (``p4 obliterate``, TFVC's ``tf destroy``, ``hg strip``), a file
uploaded by PowerShell's web cmdlets (``Invoke-RestMethod -Form @{file = Get-Item …}``), most of
all to a public file host, and data files copied by scp or rsync to a host outside the company
(a public name or address, or one named as someone's own: ``home.jdoe-personal.net``)."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator

from .http_sites import internal_name, is_paste
from .shell_catalogue import words
from .shell_model import Cmd
from .shell_rule_kit import Context, Flag, critical, high, operands, rule
from .shell_rules_net import LOCAL, REMOTE, URL, allowed

__all__ = ["outside_copy", "powershell_upload", "vcs_history"]

_P4_VALUED = words("-c -C -d -H -p -P -q -u -x -z -r -Q -L -I")
"""p4's global options that take the next word (``p4 -c client obliterate``)."""


@rule
def vcs_history(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """History destroyed in Perforce, TFVC or Mercurial: files and every revision of them
    removed from the server for good."""
    ops = operands(cmd.argv, _P4_VALUED) if cmd.name == "p4" else operands(cmd.argv)
    verb = ops[0].lower() if ops else ""
    flags = set(cmd.argv[1:])
    if cmd.name == "p4" and verb == "obliterate" and "-y" in flags:
        yield critical(
            "erases version-control history (p4 obliterate)",
            cmd.text,
            "the files and every revision of them are removed from the Perforce server; "
            "there is no undo.",
            "Delete files with p4 delete, which keeps history; leave obliterate to an admin.",
        )
    elif cmd.name in ("tf", "tf.exe", "tfs") and "destroy" in [o.lower() for o in ops[:2]]:
        yield critical(
            "erases version-control history (tf destroy)",
            cmd.text,
            "the items and their history are removed from Team Foundation for good.",
            "Delete items (tf delete), which keeps history; leave destroy to an admin.",
        )
    elif cmd.name == "hg" and verb in ("strip", "debugstrip", "prune"):
        yield high(
            "removes version-control history (hg strip)",
            cmd.text,
            "changesets and their descendants are removed from the repository.",
            "Back out the change with a new commit instead.",
        )


_WEB_CMDLETS = words("invoke-restmethod invoke-webrequest irm iwr")
_FILE_BODY = re.compile(r"(?i)^(?:-infile|-form)$|get-item|get-content|readallbytes|gci\b")


def _cmdlet_url(argv: list[str]) -> str | None:
    for k, word in enumerate(argv[1:], start=1):
        if word.lower() == "-uri" and k + 1 < len(argv):
            return argv[k + 1]
        if URL.match(word):
            return word
    return None


@rule
def powershell_upload(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """A file sent by PowerShell's ``Invoke-RestMethod``/``Invoke-WebRequest`` (``-InFile``,
    ``-Form @{file = Get-Item …}``, a ``-Body`` read from a file): critical to a public file
    host, where anyone with the link reads it; high to any other host not allowed."""
    typed = cmd.argv[0].lower() if cmd.argv else ""  # the reader names ``iwr`` curl
    if cmd.name not in _WEB_CMDLETS and typed not in _WEB_CMDLETS:
        return
    if not any(_FILE_BODY.search(w) for w in cmd.argv[1:]):
        return
    url = _cmdlet_url(cmd.argv)
    found = URL.match(url) if url is not None else None
    host = found.group(1).lower() if found is not None else ""
    if not host or LOCAL.match(host) or internal_name(host) or allowed(host, ctx):
        return
    if is_paste(host):
        yield critical(
            "uploads a file to a public file host",
            cmd.text,
            f"{host} serves whatever is posted to anyone with the link: the file leaks.",
            "Share builds and data through the company's own storage.",
        )
    else:
        yield high(
            "uploads a local file",
            cmd.text,
            f"a file is sent to {host}.",
            "Check what the file holds and where it goes, or add the host to allowed_hosts.",
        )


_DATA_FILE = re.compile(
    r"(?i)\.(?:csv|tsv|xlsx?|parquet|jsonl|ndjson|avro|orc|sql|db|sqlite3?|bak|dump|mdb)"
    r"(?:\.(?:gz|bz2|xz|zst|zip|7z))?$"
)
"""Files that hold rows of data (tables, exports, databases), not code or builds."""
_PERSONAL_HOST = re.compile(
    r"(?i)(?:^|[.-])(?:home|personal|private|my|mine|own|vps|nas|seedbox|homelab)(?:[.\d-]|$)"
)
_PRIVATE_NETS = tuple(
    ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")
)
_SCP_VALUED = words("-c -D -F -i -J -l -o -P -S -X")
_RSYNC_VALUED = words("-e --rsh --exclude --include --port --password-file --chmod --chown")


def _outside(host: str) -> bool:
    """A host outside the company's network: a public address, a public name (dotted, no
    internal suffix), or a name that says it is someone's own machine."""
    if _PERSONAL_HOST.search(host):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        labels = host.split(".")
        return (
            len(labels) >= 2
            and not internal_name(host)
            and not {"internal", "corp", "intra", "intranet", "lan"} & set(labels)
        )
    return not (ip.is_loopback or any(ip in net for net in _PRIVATE_NETS))


@rule
def outside_copy(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """A data file (a table export, a database, a dump) copied by scp or rsync to a host
    outside the company (``scp claims_q3.csv me@home.me-personal.net:``)."""
    if cmd.name not in ("scp", "rsync"):
        return
    ops = operands(cmd.argv, _SCP_VALUED if cmd.name == "scp" else _RSYNC_VALUED)
    if len(ops) < 2:
        return
    found = REMOTE.match(ops[-1])
    host = found.group(1).lower() if found is not None else ""
    if not host or len(host) == 1 or LOCAL.match(host) or allowed(host, ctx):
        return
    if not _outside(host):
        return
    source = next((s for s in ops[:-1] if not REMOTE.match(s) and _DATA_FILE.search(s)), None)
    if source is not None:
        yield high(
            "copies a data file to an outside host",
            cmd.text,
            f"{source} is copied to {host}, a host outside the company's network.",
            "Keep data on the company's hosts; add the host to allowed_hosts if it is meant.",
        )
