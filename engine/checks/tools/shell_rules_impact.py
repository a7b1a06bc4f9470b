"""Rules about commands whose effect reaches past the workspace and cannot be taken back by
the agent: stopping the machine, killing every process, publishing a package, deleting the
repository's history, serving the whole file system."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

from .shell_catalogue import words
from .shell_model import Cmd
from .shell_paths import PRIVILEGE_FILES, classify, normal
from .shell_rule_kit import Context, Flag, critical, high, operands, rule, short_flags

__all__: list[str] = []


_POWER = words("shutdown reboot halt poweroff")
_POWER_VERBS = words("poweroff reboot halt kexec suspend hibernate")
_SIGNAL = re.compile(r"^-(?:\d{1,2}|[A-Z]{2,8}|SIG[A-Z]{2,8})$")


def _stops_machine(cmd: Cmd) -> bool:
    args = cmd.argv[1:]
    if cmd.name in _POWER:
        return not ({"-c", "--help", "-k"} & set(args))  # a cancel, help or warning only
    if cmd.name in ("init", "telinit"):
        return bool(args) and args[0] in ("0", "6")
    if cmd.name in ("systemctl", "loginctl"):
        verbs = [w for w in args if not w.startswith("-")]
        return bool(verbs) and verbs[0] in _POWER_VERBS
    return False


def _kills_everything(cmd: Cmd) -> bool:
    """``kill -9 -1``, ``kill -- -1``, ``kill -s KILL -1``: every process the user may signal
    (``kill -1 PID`` sends signal 1 to PID: that one is not)."""
    if cmd.name == "killall5":
        return True
    if cmd.name != "kill":
        return False
    args = cmd.argv[1:]
    if args[:1] in (["-s"], ["-n"]):
        args = args[2:]
    elif args and _SIGNAL.match(args[0]) and len(args) > 1:
        args = args[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    return "-1" in args


_PUBLISHERS = {
    "npm": "publish",
    "yarn": "publish",
    "pnpm": "publish",
    "cargo": "publish",
    "poetry": "publish",
    "twine": "upload",
    "gem": "push",
    "dotnet": "nuget",
}


def _publishes(cmd: Cmd) -> bool:
    verb = _PUBLISHERS.get(cmd.name)
    if verb is None:
        return False
    plain = [w for w in cmd.argv[1:] if not w.startswith("-")]
    if not plain or plain[0] not in (verb, "unpublish", "yank", "deprecate"):
        return False
    dry = {"--dry-run", "-n"} & short_flags(cmd.argv)
    return not dry and "--repository-url" not in cmd.argv and "testpypi" not in cmd.text


def _deletes_history(cmd: Cmd) -> bool:
    if cmd.name != "rm" or not {"-r", "-R", "--recursive"} & short_flags(cmd.argv):
        return False
    return any(_top_git(normal(w).rstrip("/")) for w in operands(cmd.argv))


def _top_git(path: str) -> bool:
    """The repository's own ``.git`` (a vendored copy's, deeper down, is not this history)."""
    return path in (".git", "./.git", "$PWD/.git", "${PWD}/.git") or (
        path.startswith(("/", "~")) and path.endswith("/.git")
    )


_EXPOSED = re.compile(r"^(?:/|~|\$HOME|/(?:etc|root|home|var|usr))/?$")


def _serves_system(cmd: Cmd) -> str | None:
    """The folder a one-line web server exposes, when it is the root, home or a system folder
    (``python3 -m http.server --directory /``); the workspace's own folders are ordinary."""
    argv = cmd.argv
    if cmd.name.startswith("python") and "http.server" in argv:
        for i, word in enumerate(argv):
            if word in ("-d", "--directory") and i + 1 < len(argv):
                return argv[i + 1] if _EXPOSED.match(argv[i + 1]) else None
            if word.startswith("--directory="):
                value = word.split("=", 1)[1]
                return value if _EXPOSED.match(value) else None
    if cmd.name == "php" and "-S" in argv and "-t" in argv:
        i = argv.index("-t")
        if i + 1 < len(argv) and _EXPOSED.match(argv[i + 1]):
            return argv[i + 1]
    return None


@rule
def lasting_effects(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Machine power, every process killed, packages published, the repository's history
    deleted, system folders served over HTTP: each needs a human."""
    if _stops_machine(cmd):
        yield high(
            "stops or restarts the machine",
            cmd.text,
            "every process and session on the machine ends, and the agent's own with them.",
            "Restart only the service that needs it.",
        )
    elif _kills_everything(cmd):
        yield high(
            "kills every process",
            cmd.text,
            "pid -1 signals every process the user may signal, shells and services included.",
            "Signal the one process by its pid or name.",
        )
    elif _publishes(cmd):
        yield high(
            "publishes a package",
            cmd.text,
            "a release is public at once and cannot be taken back (only yanked).",
            "Let a person publish releases, or use a dry run.",
        )
    elif _deletes_history(cmd):
        yield high(
            "deletes the repository's history",
            cmd.text,
            "the .git folder holds every commit, branch and stash not pushed anywhere.",
            "Delete build outputs, not .git.",
        )
    elif (folder := _serves_system(cmd)) is not None:
        yield high(
            f"serves {folder} over HTTP",
            cmd.text,
            "anyone who reaches the port can read the files under it, credentials included.",
            "Serve only the project's own output folder.",
        )


_ADMIN_ROLES = re.compile(r"(?:^|=)(?:cluster-admin|admin|edit|owner|roles/owner|roles/editor)$")


def _grants_admin(cmd: Cmd) -> str | None:
    """Broad access granted by a cloud or cluster CLI: what is granted, or ``None``."""
    argv = cmd.argv
    verbs = [w for w in argv[1:] if not w.startswith("-")]
    admin = any(_ADMIN_ROLES.search(w) for w in argv)
    binding = verbs[:2] in (["create", "clusterrolebinding"], ["create", "rolebinding"])
    if cmd.name == "kubectl" and binding and admin:
        return "an admin role in the cluster"
    if cmd.name == "gcloud" and "add-iam-policy-binding" in verbs and admin:
        return "an owner or editor role on the project"
    if cmd.name == "gcloud" and verbs[:4] == ["iam", "service-accounts", "keys", "create"]:
        return "a long-lived key for a service account"
    if cmd.name == "aws" and verbs[:2] in (
        ["iam", "create-access-key"],
        ["iam", "attach-user-policy"],
    ):
        return "long-lived credentials or a policy to a user"
    public = any(w in ("public-read", "public-read-write") for w in argv)
    if cmd.name == "aws" and verbs[:1] == ["s3"] and public:
        return "public read access to the objects"
    return None


@rule
def broad_access(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Admin roles, long-lived keys and public objects granted from the command line."""
    granted = _grants_admin(cmd)
    if granted is not None:
        yield high(
            "grants broad access",
            cmd.text,
            f"it grants {granted}, which outlives this task.",
            "Ask a human for access changes.",
        )


_TIME_OPTIONS = frozenset({"-r", "-d", "-t", "--reference", "--date"})


@rule
def backdated(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """``touch -r /etc/hostname /etc/sudoers``: a system file's time set back, so a change to
    it does not show among recent ones."""
    if cmd.name != "touch" or not _TIME_OPTIONS & short_flags(cmd.argv):
        return
    valued = frozenset({"-r", "-d", "-t", "--reference", "--date"})
    for target in operands(cmd.argv, valued):
        if classify(target, ctx.cwd) in ("system", "root") or PRIVILEGE_FILES.match(normal(target)):
            yield critical(
                "backdates a system file",
                cmd.text,
                f"{target}'s time is set back, which hides when it was changed.",
                "Leave system files' times alone.",
            )
            return


_KEYCHAIN_READS = frozenset({"find-generic-password", "find-internet-password"})


@rule
def keychain(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """macOS's ``security`` printing a stored password (``-w``/``-g``) or the whole keychain."""
    if cmd.name != "security" or len(cmd.argv) < 2:
        return
    verb = cmd.argv[1]
    shows = bool({"-w", "-g"} & short_flags(cmd.argv))
    if (verb in _KEYCHAIN_READS and shows) or verb == "dump-keychain":
        yield critical(
            "reads a password from the keychain",
            cmd.text,
            "the stored secret is printed where the agent and its transcript see it.",
            "Never read credentials.",
        )


_USER_VERBS = words("create add update set-role add-role promote invite")
_USER_NOUNS = words("user users account accounts member members")
_ADMIN_ROLE = re.compile(
    r"(?i)^--?(?:role|roles|group)[= ]?(?:super[-_]?)?"
    r"(?:admin|administrator|owner|root|superuser)s?$"
    r"|^--(?:superuser|admin|is[-_]admin)(?:=(?:1|true|yes))?$"
)


@rule
def app_admin(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """An application's administrator account made from the command line (``wp user create
    … --role=administrator``, ``… user update … --admin``): whoever holds it runs the app."""
    args = cmd.argv[1:]
    at = next((i for i, a in enumerate(args) if a in _USER_NOUNS), None)
    if at is None or not any(a in _USER_VERBS for a in args[at + 1 : at + 3]):
        return
    joined = [f"{a} {b}" for a, b in itertools.pairwise(args) if a in ("--role", "-r")]
    if any(_ADMIN_ROLE.match(a) for a in (*args[at:], *joined)) or (
        "set-role" in args and args[-1].lower() in ("administrator", "admin", "owner")
    ):
        yield high(
            "creates or promotes an application administrator",
            cmd.text,
            "an administrator account of the application controls all of its data and users.",
            "Let an administrator create administrator accounts.",
        )


_MINERS = words(
    "xmrig xmr-stak xmr-stak-rx minerd cpuminer cpuminer-multi cgminer bfgminer ethminer "
    "nbminer t-rex lolminer phoenixminer gminer nanominer teamredminer srbminer srbminer-multi "
    "ccminer nheqminer"
)
_STRATUM = re.compile(r"(?i)\bstratum(?:\+(?:tcp|ssl|tls))?://")
_MINER_OPTIONS = re.compile(
    r"^--(?:cpu-max-threads-hint|donate-level|randomx-[\w-]+|nicehash|coin)(?:=|$)|"
    r"^(?:-a|--algo)=?(?:rx/|cn/|kawpow|ethash|randomx)"
)
"""Options only a miner takes (XMRig's), whatever the binary is renamed to."""
_MINER_FILES = re.compile(r"(?i)://\S*\b(?:xmrig|xmr-stak|xmr-static|cpuminer|minerd)[\w.-]*")
"""A miner's download address (a search for its name, ``pgrep xmrig``, is not one)."""
_POOL = re.compile(
    r"(?i)(?:^|[./])(?:pool|minexmr|nanopool|supportxmr|moneroocean|hashvault|2miners|f2pool|"
    r"herominers|nicehash)[\w.-]*:\d{2,5}$"
)


@rule
def miner(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """A cryptocurrency miner started, by its name or by a mining pool's ``stratum://``
    address: the machine's power is spent for someone else."""
    args = cmd.argv[1:]
    pool = any(a in ("-o", "--url") and _POOL.search(b) for a, b in itertools.pairwise(args))
    shaped = (_STRATUM, _MINER_OPTIONS, _MINER_FILES)
    if cmd.name in _MINERS or pool or any(p.search(w) for w in args for p in shaped):
        yield critical(
            "runs or fetches a cryptocurrency miner",
            cmd.text,
            "a miner spends this machine's processors and power for whoever holds the wallet.",
            "Never run miners on work machines.",
        )
