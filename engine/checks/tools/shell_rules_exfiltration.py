"""Rules about credentials and data sent over the network (for ``shell_rules_secrets``, which
imports this module first so ``exfiltration`` registers before ``secret_reads`` as before): files,
the environment and secret variables uploaded or copied to a remote host, a pipe's data sent by
an upload, and DNS lookups carrying data; the secret-variable and environment-dump tables both
rule families read."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .egress_files import records_file
from .shell_binaries import DATABASE_DUMPS, DOWNLOADERS, RAW_NET
from .shell_catalogue import words
from .shell_model import Cmd
from .shell_paths import classify, is_secret, normal
from .shell_rule_kit import Context, Flag, critical, high, operands, rule, short_flags
from .shell_rules_net import DEV_TCP, LOCAL, REMOTE, URL, allowed, fed, host_of

__all__ = ["ENV_DUMP", "SECRET_VAR", "exfiltration"]

SECRET_VAR = re.compile(
    r"\$\{?\w*(?:SECRET|TOKEN|PASSWORD|PASSWD|API_?KEY|PRIVATE_KEY|"
    r"ACCESS_KEY|CREDENTIAL)\w*\}?",
    re.IGNORECASE,
)
ENV_DUMP = words(
    """
    env printenv set compgen declare export
    """
)
_PERSONAL = re.compile(r"^(?:/etc/|/root/|/proc/|/var/log/|/home/[^/]+/\.|~/\.|\$HOME/\.)")
_URLENCODED_FILE = re.compile(r"^[^=@]*@(.+)$")
"""curl's ``--data-urlencode`` forms that read a file: ``@file`` and ``name@file``."""


def _uploads(cmd: Cmd) -> list[str]:
    out: list[str] = []
    argv = cmd.argv
    for i, word in enumerate(argv[1:], 1):
        value = argv[i + 1] if i + 1 < len(argv) else ""
        opt, eq, joined = word.partition("=")
        if cmd.name == "curl" and re.match(r"^-[a-zA-Z]{2,}$", word):
            word = "-" + word[-1]  # ``-sT -``: a cluster's last option takes the value
        if cmd.name == "curl":
            if word in ("-d", "--data", "--data-binary", "--data-ascii", "--json"):
                if value.startswith("@"):  # ``-d @file``; ``-d '{"to":"a@b.io"}'`` is data
                    out.append(value[1:])
            elif word == "--data-urlencode" and (m := _URLENCODED_FILE.match(value)):
                out.append(m.group(1))  # ``name@file`` or ``@file``; ``name=a@b`` is data
            elif word in ("-F", "--form") and re.search(r"=[@<]", value):
                out.append(re.split(r"=[@<]", value, maxsplit=1)[1].split(";", 1)[0])
            elif word in ("-T", "--upload-file"):
                out.append(value)
        elif cmd.name == "wget" and opt in ("--post-file", "--body-file"):
            out.append(joined if eq else value)
        elif cmd.name in ("http", "https", "xh") and re.match(r"^[\w-]*:?=?@", word):
            out.append(word.split("@", 1)[1])
        elif cmd.name == "ab" and word in ("-p", "-u"):
            out.append(value)
    if cmd.name in RAW_NET | {"curl", "wget"}:
        out.extend(r.target for r in cmd.redirects if r.op == "<" and r.fd in (None, 0))
    literal = all(c.name in ("echo", "printf") for c in cmd.upstream) or (
        cmd.name == "openssl" and "s_client" not in cmd.argv  # ``openssl x509``: no connection
    )
    target = next((w for w in argv[1:] if not w.startswith("-")), "")
    local = bool(LOCAL.match(target.split("@")[-1].split(":")[0]))
    if cmd.name in RAW_NET and cmd.upstream and not literal and not local and "-" not in out:
        out.append("-")  # ``tar … | nc host port``: what the pipe carries is sent
    return out


def _piped_upload(cmd: Cmd, host: str, ctx: Context) -> Flag | None:
    """What an upload of its standard input (``… | curl -T -``) sends, by what feeds it:
    secrets or the environment, a database dump, a system or personal file, or other data."""
    feeding = fed(cmd)
    where = host or "a remote host"
    if any(c.name in ENV_DUMP or any(is_secret(w) for w in c.argv[1:]) for c in feeding):
        return critical(
            "sends secrets over the network",
            cmd.text,
            "credentials or the environment are piped into an upload.",
            "Never send credentials anywhere.",
        )
    if allowed(host, ctx):
        return None
    dump = next((c.name for c in feeding if c.name in DATABASE_DUMPS), None)
    if dump is not None:
        why = f"the output of {dump} is sent to {where}."
        return critical("sends a database dump over the network", cmd.text, why, _KNOWN_HOSTS)
    personal = next(
        (
            w
            for c in feeding
            for w in c.argv[1:]
            if _PERSONAL.match(normal(w)) or classify(w, ctx.cwd) in ("home", "root")
        ),
        None,
    )
    if personal is not None:
        why = f"a system or personal file is piped to {where}."
        return critical(f"uploads {normal(personal)}", cmd.text, why, _KNOWN_HOSTS)
    if feeding:
        why = f"the output of {feeding[0].name} is sent to {where}."
        return high("uploads piped data", cmd.text, why, _KNOWN_HOSTS)
    return None


_KNOWN_HOSTS = "Send only project data, to known hosts (add them to allowed_hosts)."


@rule
def exfiltration(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Files, the environment and secrets sent over the network; DNS lookups carrying data."""
    host = host_of(cmd)
    for path in _uploads(cmd):
        if path in ("/dev/null", "/dev/zero"):
            continue  # nothing is read from there
        if path == "-":
            flag = _piped_upload(cmd, host, ctx)
            if flag is not None:
                yield flag
        elif is_secret(path):
            yield critical(
                f"uploads {normal(path)}",
                cmd.text,
                f"a credential file is sent to {host or 'a remote host'}.",
                "Never send credentials anywhere.",
            )
        elif _PERSONAL.match(normal(path)) and not allowed(host, ctx):
            yield critical(
                f"uploads {normal(path)}",
                cmd.text,
                f"a system or personal file is sent to {host or 'a remote host'}.",
                "Send only project files, to known hosts.",
            )
        elif not allowed(host, ctx):
            yield high(
                "uploads a data export" if records_file(path) else "uploads a local file",
                cmd.text,
                f"{path} is sent to {host or 'a remote host'}.",
                "Check what the file holds and where it goes, or add the host to allowed_hosts.",
            )
    if cmd.name in ("scp", "rsync", "sftp", "rclone") and not short_flags(cmd.argv) & {
        "--dry-run",
        "-n",
    }:
        ops = operands(
            cmd.argv,
            words(
                """
    -e -i -P -p -o -F -J -l
    """
            ),
        )
        if len(ops) >= 2 and REMOTE.match(ops[-1]) and not allowed(host, ctx):
            for src in ops[:-1]:
                whole = normal(src) in (".", "*", "~", "$HOME", "/", "..") or re.match(
                    r"^(?:~|\$HOME|/home/[^/]+|/Users/[^/]+|/root)$", normal(src)
                )
                if is_secret(src) or whole:
                    yield critical(
                        "copies secrets or a whole folder to a remote host",
                        cmd.text,
                        f"{src} is sent to {ops[-1]}.",
                        "Send only the files needed, never credentials.",
                    )
    net = cmd.name in DOWNLOADERS | RAW_NET or bool(
        DEV_TCP.search(" ".join(r.target for r in cmd.redirects))
    )
    if net and any(
        (c.name in ENV_DUMP and len(c.argv) <= 2) or "environ" in " ".join(c.argv)
        for c in fed(cmd) + [x for _, _, cs in cmd.subs for x in cs]
    ):
        yield critical(
            "sends the environment over the network",
            cmd.text,
            "environment variables hold tokens and keys.",
            "Never send the environment anywhere.",
        )
    if cmd.name in ("dig", "nslookup", "host", "drill", "ping", "ping6") and cmd.subs:
        yield critical(
            "hides data in a DNS lookup",
            cmd.text,
            "command output becomes part of a name looked up, which leaks it past firewalls.",
            "Do not build host names from command output.",
        )
    if net and not allowed(host, ctx):
        data = [
            cmd.argv[i + 1]
            for i, w in enumerate(cmd.argv[:-1])
            if w in ("-d", "--data", "--data-raw", "--data-binary", "--post-data", "-F")
        ]
        urls = [w for w in cmd.argv if URL.match(w)]
        if any(SECRET_VAR.search(w) for w in data + urls):
            yield high(
                "sends a secret variable",
                cmd.text,
                f"a token or password goes to {host or 'a remote host'} in the body or URL.",
                "Send secrets only to the service they belong to, in a header.",
            )
