"""Rules about credentials: credential files read, copied or shown by any program; files,
the environment and secret variables sent over the network; DNS lookups carrying data (those
in ``shell_rules_exfiltration``, imported first so its rule registers first as before)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .shell_catalogue import words
from .shell_model import Cmd
from .shell_paths import is_secret, normal, outside_workspace
from .shell_rule_kit import Context, Flag, critical, high, operands, rule
from .shell_rules_exfiltration import ENV_DUMP, SECRET_VAR
from .shell_rules_net import fed

__all__: list[str] = []


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


def _prints_secret(cmd: Cmd) -> Flag:
    return high(
        "prints a secret variable",
        cmd.text,
        "its value ends up in the transcript.",
        "Use the variable without printing it.",
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
    if searched and any(c.name in ENV_DUMP for c in fed(cmd)):
        yield high(
            "prints the environment's secrets",
            cmd.text,
            "the environment is searched for keys and tokens, which then reach the transcript.",
            "Use the variables without printing them.",
        )
        return
    if cmd.name == "printenv" and any(SECRET_VAR.search("$" + w) for w in cmd.argv[1:]):
        yield _prints_secret(cmd)
        return
    if (cmd.name in _USES_SECRETS and not git_read and not docker_cp) or cmd.owner in _LOADS:
        printed = cmd.name in ("echo", "printf") and not cmd.redirects and cmd.owner not in _LOADS
        if printed and any(SECRET_VAR.search(w) for w in cmd.argv[1:]):
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
