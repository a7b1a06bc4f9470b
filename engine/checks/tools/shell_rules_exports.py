"""Rules about data exports leaving by a copy or upload program: a file whose name says it holds
people's records or a copy of a database (``hr_salaries_ssn_2024.xlsx``, ``crm_dump.sql.gz``)
copied to a remote host or a bucket (scp, rsync, sftp/ftp/lftp ``put``, gsutil, gcloud
storage, aws s3, azcopy, rclone, s3cmd), and an export or a dump piped straight into such an
upload (``… export … | aws s3 cp - s3://…``). curl's uploads are read by ``exfiltration``.

Copies between folders of this machine, and builds, bundles and reports copied anywhere, are
everyday."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator

from .egress_files import records_file
from .shell_binaries import DATABASE_DUMPS
from .shell_catalogue import words
from .shell_model import Cmd
from .shell_rule_kit import Context, Flag, high, operands, piped, rule
from .shell_rules_net import LOCAL, REMOTE, URL, allowed, fed

__all__ = ["cloud_copy", "ftp_puts", "remote_copy"]

_BUCKET = re.compile(r"(?i)^(?:s3|gs|az|r2|b2|oss|cos|s3a|wasbs?|abfss?)://([^/\s]+)")
_RCLONE_REMOTE = re.compile(r"^([\w.-]{2,}):")
"""An rclone remote (``backup:folder``); a one-letter name is a Windows drive."""
_CLOUD_VERBS: dict[str, tuple[int, frozenset[str]]] = {
    "gsutil": (0, words("cp mv rsync")),
    "aws": (1, words("cp mv sync")),
    "gcloud": (1, words("cp mv rsync")),
    "azcopy": (0, words("copy cp sync")),
    "rclone": (0, words("copy copyto sync move moveto rcat")),
    "s3cmd": (0, words("put sync")),
}
"""Which operand of a cloud CLI is its copy verb (``aws s3 cp``: the second) and which verbs
upload."""
_CLOUD_GROUPS = {"aws": "s3", "gcloud": "storage"}
_CLOUD_VALUED = words(
    """
    --profile --region --exclude --include --acl --storage-class --endpoint-url --content-type
    --cache-control --metadata --sse --sse-kms-key-id --expected-size --exclude-from --filter
    --include-from --filter-from --config --project --billing-project --log-level --transfers
    --checkers --from-file --files-from --content-encoding --grants -x -h -o -z
    """
)
"""Options of the cloud CLIs that take the next word (``--profile external``)."""
_SCP_VALUED = words("-c -D -F -i -J -l -o -P -S -X")
_RSYNC_VALUED = words(
    """
    -e --rsh --exclude --include --exclude-from --include-from --files-from --filter -f
    --log-file --password-file --port --bwlimit --chmod --chown -T --temp-dir --partial-dir
    --backup-dir --suffix -B --block-size --timeout --link-dest --compare-dest --copy-dest
    -M --remote-option
    """
)
_FTP_VALUED: dict[str, frozenset[str]] = {
    "lftp": words("-u -p -e -c -f --user --password"),
    "sftp": words("-b -B -c -D -F -i -J -l -o -P -R -S -s -X"),
    "psftp": words("-b -i -l -P -pw"),
    "ftp": frozenset(),
    "ncftp": words("-u -p -P -j"),
    "ncftpput": words("-u -p -P -j -a"),
}
"""FTP and SFTP clients, and their options that take the next word (``lftp -u user,pass``)."""
_PUTS = words("put mput reput")
_PUT_VALUED = words("-o -O -P --parallel")
_OPEN = re.compile(r"(?im)(?:^|;)\s*open\s+(?:-\S+\s+)*(?:\w+://)?(?:[^@\s;]+@)?([\w.-]+)")
_EXPORT_WORDS = words("export exports dump dumps backup backups")
"""Words of a command that say its output is an export (``zendesk-cli users export``)."""
_FIX = (
    "Check that this data may leave, and where it goes (add the host to allowed_hosts if it is "
    "meant); send aggregates or only the records needed."
)


def _remote(dest: str) -> str | None:
    """The host or bucket a destination word names (None: a path on this machine)."""
    if m := _BUCKET.match(dest):
        return m.group(1).lower()
    if m := URL.match(dest):
        host = m.group(1).lower()
        return None if LOCAL.match(host) else host
    if m := REMOTE.match(dest):
        host = m.group(1).lower()
        return None if LOCAL.match(host) or len(host) == 1 else host
    return None


_SENSITIVE_BUCKET = re.compile(
    r"(?i)(?:^|[-_.])(?:prod|production|prd|live|phi|pii|customers?|patients?|members?|users|"
    r"payroll|hr|finance|billing|payments?|records|exports?|backups?|dumps?)(?:$|[-_.\d])"
)
_GENERIC = words(
    """
    prod production prd live data bucket buckets export exports backup backups archive
    archives dump dumps store storage files eu us east west north south central
    """
)


def _elsewhere(source: str, dest: str) -> bool:
    """Whether a bucket of production or people's data (``source``) is copied to a bucket
    that shares no name with it (``acme-prod-exports`` → ``jd-personal-archive``)."""
    if not _SENSITIVE_BUCKET.search(source) or source.lower() == dest:
        return False
    names = {w for w in re.split(r"[-_.]", source.lower()) if len(w) > 2 and w not in _GENERIC}
    return not names & set(re.split(r"[-_.]", dest))


def _flag(what: str, where: str, fragment: str) -> Flag:
    return high("uploads a data export", fragment, f"{what} is copied to {where}.", _FIX)


def _exports(cmd: Cmd) -> str | None:
    """What in a command says its output is an export or a dump: a database dump program, an
    ``export``/``dump``/``backup`` word, or a file named as one it reads."""
    if cmd.name in DATABASE_DUMPS:
        return f"the output of {cmd.name}"
    ops = operands(cmd.argv)
    if any(w.lower() in _EXPORT_WORDS for w in ops[:4]):
        return f"the output of {cmd.name} {' '.join(ops[:3])}"
    found = next((w for w in ops if records_file(w)), None)
    return f"{found}, read by {cmd.name}" if found is not None else None


def _piped_export(cmd: Cmd) -> str | None:
    """The export a command that uploads its standard input is fed, if any."""
    return next((got for c in fed(cmd) if (got := _exports(c)) is not None), None)


@rule
def cloud_copy(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """A data export copied to a bucket or remote store by a cloud CLI (``gsutil cp
    crm_dump.sql.gz gs://…``, ``aws s3 cp``, ``gcloud storage cp``, ``azcopy``, ``rclone``,
    ``s3cmd put``), or piped into one (``pg_dump … | gsutil cp - gs://…``)."""
    place = _CLOUD_VERBS.get(cmd.name)
    if place is None:
        return
    at, verbs = place
    argv = cmd.argv
    group = _CLOUD_GROUPS.get(cmd.name)
    if group is not None and argv[1:2] != [group]:
        return
    ops = operands(argv, _CLOUD_VALUED)
    if len(ops) <= at or ops[at] not in verbs:
        return
    rest = ops[at + 1 :]
    if ops[at] == "rcat":
        rest = ["-", *rest]
    if len(rest) < 2:
        return
    dest = _remote(rest[-1]) if cmd.name != "rclone" else _rclone_dest(rest[-1])
    if dest is None or allowed(dest, ctx):
        return
    for src in rest[:-1]:
        if src == "-":
            what = _piped_export(cmd)
            if what is not None:
                yield _flag(what, rest[-1], piped(cmd))
                return
        elif _remote(src) is None and records_file(src):
            yield _flag(src, rest[-1], cmd.text)
            return
        elif (bucket := _BUCKET.match(src)) is not None and _elsewhere(bucket.group(1), dest):
            yield high(
                "copies a bucket of records to another bucket",
                cmd.text,
                f"{bucket.group(1)} holds production or people's data; {dest} shares no name "
                "with it, so it may belong to someone else.",
                _FIX,
            )
            return


def _rclone_dest(word: str) -> str | None:
    m = _RCLONE_REMOTE.match(word)
    return m.group(1).lower() if m is not None else _remote(word)


@rule
def remote_copy(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """A data export copied to another host by scp or rsync (``scp hr_salaries.xlsx
    deploy@203.0.113.50:/tmp/``)."""
    if cmd.name not in ("scp", "rsync"):
        return
    ops = operands(cmd.argv, _SCP_VALUED if cmd.name == "scp" else _RSYNC_VALUED)
    if len(ops) < 2:
        return
    dest = _remote(ops[-1]) or (
        m.group(1).lower() if (m := re.match(r"^rsync://([^/:]+)", ops[-1])) else None
    )
    if dest is None or allowed(dest, ctx):
        return
    src = next((s for s in ops[:-1] if _remote(s) is None and records_file(s)), None)
    if src is not None:
        yield _flag(src, ops[-1], cmd.text)


def _put_sources(script: str) -> list[str]:
    """The local files the ``put``/``mput``/``mirror -R`` commands of an FTP client's script
    send (``put customers.csv; bye``)."""
    out: list[str] = []
    for line in re.split(r"[;\n]", script[:65_536])[:500]:
        try:
            parts = shlex.split(line, comments=False)
        except ValueError:
            parts = line.split()
        if not parts:
            continue
        verb, args = parts[0].lower(), parts[1:]
        if verb == "mirror" and not {"-R", "--reverse"} & set(args):
            continue
        if verb not in _PUTS and verb != "mirror":
            continue
        files = operands(["put", *args], _PUT_VALUED)
        out.extend(files if verb == "mput" else files[:1])
    return out


def _ftp_host(cmd: Cmd, scripts: list[str]) -> str:
    """The host an FTP client connects to: its first operand or a URL, or ``open HOST`` in
    its script ("" when none is written)."""
    for word in operands(cmd.argv, _FTP_VALUED[cmd.name]):
        if m := URL.match(word):
            return m.group(1).lower()
        host = word.rsplit("@", 1)[-1].split(":", 1)[0]
        if re.fullmatch(r"[\w.-]+", host):
            return host.lower()
    for script in scripts:
        if m := _OPEN.search(script):
            return m.group(1).lower()
    return ""


@rule
def ftp_puts(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """A data export sent by an FTP or SFTP client's ``put`` (``lftp ftp://host -e 'put
    customers.csv'``, ``sftp host <<< 'put dump.sql'``)."""
    if cmd.name not in _FTP_VALUED:
        return
    argv = cmd.argv
    lftp = cmd.name == "lftp"  # its -e and -c hold commands; sftp's -c is a cipher
    scripts = [argv[i + 1] for i, w in enumerate(argv[:-1]) if lftp and w in ("-e", "-c")]
    if cmd.stdin:
        scripts.append(cmd.stdin)
    sources = [s for script in scripts for s in _put_sources(script)]
    if cmd.name == "ncftpput":
        sources += operands(argv, _FTP_VALUED[cmd.name])[2:]
    host = _ftp_host(cmd, scripts)
    if LOCAL.match(host) or allowed(host, ctx):
        return
    src = next((s for s in sources if records_file(s)), None)
    if src is not None:
        yield _flag(src, host or "a remote host", cmd.text)
