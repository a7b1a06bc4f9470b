"""Rules about credentials: credential files read, copied or shown by any program; files,
the environment and secret variables sent over the network; DNS lookups carrying data."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .egress_files import records_file
from .shell_binaries import DATABASE_DUMPS, DOWNLOADERS, RAW_NET
from .shell_catalogue import words
from .shell_model import Cmd
from .shell_paths import classify, is_secret, normal, outside_workspace
from .shell_rule_kit import Context, Flag, critical, high, operands, rule, short_flags
from .shell_rules_net import DEV_TCP, LOCAL, REMOTE, URL, allowed, fed, host_of

__all__: list[str] = []


_SECRET_VAR = re.compile(
    r"\$\{?\w*(?:SECRET|TOKEN|PASSWORD|PASSWD|API_?KEY|PRIVATE_KEY|"
    r"ACCESS_KEY|CREDENTIAL)\w*\}?",
    re.IGNORECASE,
)


_ENV_DUMP = words(
    """
    env printenv set compgen declare export
    """
)


_FILTERS = words("grep egrep fgrep rg ag awk sed")
_SECRET_WORDS = re.compile(r"(?i)key|token|secret|pass|credential|auth")


_USES_SECRETS = words(
    """
    ls stat test [ chmod chown chgrp touch mkdir rm rmdir ssh ssh-add ssh-keygen ssh-copy-id
    git docker docker-compose kubectl helm kubectx aws gcloud az terraform source . export
    file du realpath readlink basename dirname sha256sum sha1sum md5sum shred srm dotenv
    direnv set code ln unset cd echo printf which find gpg pass sops op vault mv truncate
    """
)


_GIT_READS = words(
    """
    diff show cat-file grep blame log hash-object add commit
    """
)


_NAME_LISTS = words(
    """
    cpio xargs tar zip rsync pax afio
    """
)


_PERSONAL = re.compile(r"^(?:/etc/|/root/|/proc/|/var/log/|/home/[^/]+/\.|~/\.|\$HOME/\.)")
_OUTPUTS = frozenset(
    {
        "-o",
        "--output",
        "-out",
        "--out",
        "-keyout",
        "-key-file",
        "--key-file",
        "-cert-file",
        "--cert-file",
        "-O",
        "--output-document",
        "--keyout",
        "-pkcs12",
    }
)
"""Options whose value is a file the program writes (``mkcert -key-file certs/dev-key.pem``,
``openssl req -keyout``): a key it creates is no key it reads."""
_SUBCOMMANDS = frozenset({"gh", "glab", "heroku", "npm", "op", "doctl", "flyctl", "vercel"})
"""CLIs whose first words are subcommands (``gh auth token`` prints a token: it is no file)."""
_LOADS = words(
    """
    export declare local readonly typeset = eval source .
    """
)


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
    if any(c.name in _ENV_DUMP or any(is_secret(w) for w in c.argv[1:]) for c in feeding):
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


def _prints_secret(cmd: Cmd) -> Flag:
    return high(
        "prints a secret variable",
        cmd.text,
        "its value ends up in the transcript.",
        "Use the variable without printing it.",
    )


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
        (c.name in _ENV_DUMP and len(c.argv) <= 2) or "environ" in " ".join(c.argv)
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
        if any(_SECRET_VAR.search(w) for w in data + urls):
            yield high(
                "sends a secret variable",
                cmd.text,
                f"a token or password goes to {host or 'a remote host'} in the body or URL.",
                "Send secrets only to the service they belong to, in a header.",
            )


_FOLDER_READERS = frozenset(
    {"tar", "bsdtar", "zip", "7z", "7za", "rar", "rsync", "scp", "cp", "grep", "egrep", "fgrep",
     "rg", "ag", "ack", "find", "base64", "gpg", "cpio", "pax", "rclone", "gsutil", "aws", "az",
     "diff"}
)  # fmt: skip
_CLOUD_COPY = frozenset({"aws", "gsutil", "gcloud", "az", "rclone", "azcopy", "s3cmd"})
_SECRET_DIR = re.compile(
    r"(?:^|/)\.(?:ssh|gnupg|aws|kube|docker|azure|password-store|vault)/?\*?$"
    r"|/\.config/(?:gcloud|gh|rclone|op)/?\*?$"
)
"""Folders of keys and credentials, read whole (``tar czf - ~/.ssh``, ``grep -r … ~/.aws/``)."""


@rule
def secret_reads(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Credential files read, copied or shown by any program."""
    if cmd.name == "security":
        return  # macOS's keychain tool: the keychain rule reads its verbs
    in_place = cmd.name in ("sed", "perl") and any(w.startswith("-i") for w in cmd.argv[1:3])
    if in_place and not any(outside_workspace(w, ctx.workspace) for w in operands(cmd.argv)[1:]):
        return  # an in-place edit of the workspace's own file (``sed -i … .env``)
    git_read = cmd.name == "git" and bool(set(cmd.argv[1:3]) & _GIT_READS)
    docker_cp = cmd.name == "docker" and "cp" in cmd.argv[1:3]
    if cmd.name in _CLOUD_COPY and set(cmd.argv[1:4]) & {"cp", "sync", "mv", "copy", "upload"}:
        secret = next((w for w in operands(cmd.argv) if is_secret(w)), None)
        if secret is not None:
            yield critical(
                f"uploads {normal(secret)}",
                cmd.text,
                "it copies a credential file to storage others may read.",
                "Never upload credentials; rotate them if this ran.",
            )
            return
    searched = cmd.name in _FILTERS and _SECRET_WORDS.search(" ".join(cmd.argv[1:]))
    if searched and any(c.name in _ENV_DUMP for c in fed(cmd)):
        yield high(
            "prints the environment's secrets",
            cmd.text,
            "the environment is searched for keys and tokens, which then reach the transcript.",
            "Use the variables without printing them.",
        )
        return
    if cmd.name == "printenv" and any(_SECRET_VAR.search("$" + w) for w in cmd.argv[1:]):
        yield _prints_secret(cmd)
        return
    if (cmd.name in _USES_SECRETS and not git_read and not docker_cp) or cmd.owner in _LOADS:
        printed = cmd.name in ("echo", "printf") and not cmd.redirects and cmd.owner not in _LOADS
        if printed and any(_SECRET_VAR.search(w) for w in cmd.argv[1:]):
            yield _prints_secret(cmd)
        return
    if cmd.stdin and cmd.name in _NAME_LISTS and any(is_secret(w) for w in cmd.stdin.split()):
        yield critical(
            "reads a credential file",
            cmd.text,
            f"{cmd.name} is given a credential file's name to read.",
            "Never read credentials.",
        )
        return
    if cmd.name == "openssl" and (
        not set(cmd.argv[1:2]) & {"rsa", "pkey", "ec", "dsa", "pkcs12", "base64", "enc"}
        or "-noout" in cmd.argv
        or "-pubout" in cmd.argv
    ):
        return
    words = operands(cmd.argv, _OUTPUTS)
    if cmd.name in _SUBCOMMANDS:
        words = words[2:]  # ``gh auth token``: subcommands, not files
    words += [r.target for r in cmd.redirects if r.op in ("<", "<>")]
    words += [
        w.split("=", 1)[1]
        for w in cmd.argv[1:]
        if "=" in w and w.startswith(("-", "if=")) and w.split("=", 1)[0] not in _OUTPUTS
    ]
    if cmd.name in ("cp", "install", "rsync", "scp", "tar", "zip", "7z") and len(words) > 1:
        dest = words[-1] if cmd.name in ("cp", "install", "rsync", "scp") else ""
        words = words[:-1] if dest else words
        if dest and is_secret(dest):
            return
    if cmd.name in _FOLDER_READERS:
        folder = next((w for w in words if _SECRET_DIR.search(normal(w))), None)
        recursive = cmd.name not in ("grep", "egrep", "fgrep", "cp", "scp", "diff") or bool(
            {"-r", "-R", "-a", "--recursive"} & set(cmd.argv)
            or any(
                w.startswith("-") and not w.startswith("--") and set(w[1:]) & set("rRa")
                for w in cmd.argv[1:]
            )
        )
        if folder is not None and recursive:
            yield critical(
                f"reads the key folder {normal(folder)}",
                cmd.text,
                "it reads a whole folder of keys or credentials, which can then be shown or "
                "sent anywhere.",
                "Use credentials through the tool that needs them; never collect them.",
            )
            return
    for word in words:
        if is_secret(word):
            yield critical(
                f"reads {normal(word)}",
                cmd.text,
                "it reads a credential file "
                "(keys, passwords, tokens), whose content can then be shown or "
                "sent anywhere.",
                "Use credentials through the tool that needs them; never read them.",
            )
            return
