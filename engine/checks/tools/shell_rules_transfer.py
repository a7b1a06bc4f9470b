"""Rules about files moved by unusual means (the GTFOBins "File upload", "File download" and
"File read" functions): raw sockets, file contents smuggled in arguments of network clients,
remote archives, printers and servers, payloads decoded from the network, and files read
through an encode/decode round trip. Plain ``curl``/``wget`` downloads are not flagged."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .shell_binaries import NET_TOOLS, RAW_NET
from .shell_catalogue import words
from .shell_model import Cmd
from .shell_rule_kit import Context, Flag, high, operands, piped, rule

__all__: list[str] = []

_READERS = words(
    """
    cat base64 base32 basenc xxd od hexdump head tail tac gzip tar zip uuencode openssl cut
    sed awk strings nl rev dd
    """
)
_SENDERS = NET_TOOLS | {
    "finger",
    "whois",
    "rlogin",
    "rsh",
    "cancel",
    "lp",
    "lpr",
    "ab",
    "mail",
    "mailx",
    "sendmail",
    "nslookup",
    "dig",
    "host",
    "ping",
}
_FAMILIES = {
    "base64": "base64",
    "base32": "base32",
    "basenc": "basenc",
    "xxd": "xxd",
    "uuencode": "uu",
    "uudecode": "uu",
    "openssl": "openssl",
    "od": "xxd",
}
_DECODE = re.compile(r"^(?:-d|-D|--decode|-r|-rp|-pr)$")
_INSTALLERS = words(
    """
    yum dnf rpm zypper apt apt-get dpkg pkg opkg
    """
)
_REMOTE_ARCHIVE = re.compile(r"^[\w.-]+@[\w.-]+:")
_PUBLIC_BIND = re.compile(r"(?:^|[=\s:])0\.0\.0\.0(?::|\s|$)|--address[=\s]+0\.0\.0\.0")


def _reads_file(cmd: Cmd) -> bool:
    return cmd.name in _READERS and bool(operands(cmd.argv))


@rule
def smuggled(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """A file's content put into the arguments of a network client (``finger "$(base64
    f)@host"``, ``whois -h host "$(cat f)"``)."""
    if cmd.name not in _SENDERS:
        return
    if any(_reads_file(c) for _, word, cmds in cmd.subs if word >= 0 for c in cmds):
        yield high(
            "sends a file's content in its arguments",
            cmd.text,
            f"{cmd.name} carries the output of a file read to a remote host.",
            "Do not send files through command arguments.",
        )


@rule
def raw_transfers(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Files written from or read into raw connections and odd network clients."""
    name, args = cmd.name, cmd.argv[1:]
    joined = " ".join(args)
    redirected = [
        r for r in cmd.redirects if r.op in (">", ">>", "<") and not r.target.startswith("/dev/")
    ]
    raw = name in RAW_NET and (name != "openssl" or "s_client" in args)
    if raw and redirected and not re.search(r"(?:^|\s)-z\b", joined):
        yield high(
            "transfers a file over a raw connection",
            cmd.text,
            f"{name} moves {redirected[0].target} to or from a remote host unchecked.",
            "Use an authenticated, normal client.",
        )
    elif (
        name == "socat"
        and any(re.match(r"^(?:file|open|create|gopen):", w, re.I) for w in args)
        and any(re.match(r"^(?:tcp|udp|openssl|ssl)", w, re.I) for w in args)
    ):
        yield high(
            "transfers a file over a raw connection",
            cmd.text,
            "socat joins a file and a network socket.",
            "Use an authenticated, normal client.",
        )
    elif name == "whois" and ("-p" in args or "--port" in joined):
        yield high(
            "transfers data through whois",
            cmd.text,
            "whois to a custom port is a raw channel to any host.",
            "Use a normal client.",
        )
    elif name in ("ssh", "rsh") and any(
        r.op == "<" and not r.target.startswith("/dev/") for r in cmd.redirects
    ):
        yield high(
            "uploads a file over ssh",
            cmd.text,
            "a local file is fed to a remote command.",
            "Use scp with a reviewed path, or skip the upload.",
        )
    elif name == "tar" and any(_REMOTE_ARCHIVE.match(w) for w in args):
        yield high(
            "tar archive on a remote host",
            cmd.text,
            "files are sent to or taken from a remote host.",
            "Copy reviewed files with scp or rsync.",
        )
    elif name in ("lp", "lpr") and re.search(r"(?:^|\s)-[hH]\b", joined):
        yield high(
            "prints to a remote host",
            cmd.text,
            "the file is sent to a remote print server.",
            "Print locally, if at all.",
        )
    elif name == "smbclient" and re.search(r"\bm?put\b", joined):
        yield high(
            "uploads a file over SMB",
            cmd.text,
            "a local file is sent to a share.",
            "Check what is sent and where.",
        )
    elif name in _INSTALLERS and re.search(r"(?:^|\s)(?:https?|ftp)://", joined):
        yield high(
            "installs a package from a URL",
            cmd.text,
            "the package comes from an arbitrary server and runs install scripts as root.",
            "Install from the distribution's repositories.",
        )
    elif (
        (name == "httpd" and re.search(r"(?:^|\s)-[fph]\b", joined))
        or (name == "php" and "-S" in args and _PUBLIC_BIND.search(joined))
        or (
            name == "kubectl"
            and "proxy" in args
            and (_PUBLIC_BIND.search(joined) or "--www" in joined)
        )
    ):
        yield high(
            "serves files to the network",
            cmd.text,
            "a server bound to every interface exposes local files.",
            "Bind to localhost, or do not serve.",
        )


@rule
def decoded_downloads(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Payloads decoded from the network; files read through encode/decode round trips."""
    family = _FAMILIES.get(cmd.name)
    decoding = family is not None and (
        cmd.name == "uudecode" or any(_DECODE.match(w) for w in cmd.argv[1:])
    )
    if not decoding:
        return
    ups = cmd.upstream
    if any(u.name in _SENDERS and u.name not in ("git", "aws", "gcloud") for u in ups):
        yield high(
            "decodes data received from the network",
            piped(cmd),
            "an encoded payload is fetched and unpacked, hiding what it is.",
            "Fetch plain files from known hosts.",
        )
    elif any(_FAMILIES.get(u.name) == family and operands(u.argv) for u in ups):
        yield high(
            "reads a file through an encode/decode round trip",
            piped(cmd),
            "encoding "
            "a file only to decode it again is a way to read files a tool may not "
            "read directly.",
            "Read the file plainly, if it may be read at all.",
        )
