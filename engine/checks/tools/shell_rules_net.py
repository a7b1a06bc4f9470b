"""Rules about code and data crossing the network: downloads run as code (piped, substituted
or saved then run), decoded payloads run, reverse and bind shells, uploads and exfiltration,
and reads of credentials that would show or send them."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .shell_binaries import DOWNLOADERS, RAW_NET
from .shell_catalogue import INTERPRETERS, SHELLS
from .shell_model import Cmd, Program
from .shell_paths import normal
from .shell_rule_kit import (
    Context,
    Flag,
    critical,
    high,
    operands,
    piped,
    program_rule,
    rule,
    short_flags,
)
from .shell_wrappers import interpreter_code, shell_flags

__all__ = ["DEV_TCP", "LOCAL", "REMOTE", "URL", "allowed", "fed", "host_of", "runs_input"]

URL = re.compile(r"^(?:https?|ftps?|tftp|sftp|scp)://([^/:?#\s]+)", re.IGNORECASE)
REMOTE = re.compile(r"^(?:[\w.-]+@)?([\w.-]+):(?!//)")
DEV_TCP = re.compile(r"/dev/(?:tcp|udp)/([^/\s]+)/")
LOCAL = re.compile(r"^(?:localhost|127\.\d+\.\d+\.\d+|::1|0\.0\.0\.0)$")
_LOCAL_TCP = re.compile(r"/dev/(?:tcp|udp)/(?:localhost|127\.\d+\.\d+\.\d+)/")
_DECODE_FLAGS = re.compile(r"^-(?:d|D|-decode|r|ps?r|rp)$|^--?decode$")


def host_of(cmd: Cmd) -> str:
    for word in cmd.argv[1:]:
        m = URL.match(word) or (
            REMOTE.match(word) if cmd.name in ("scp", "rsync", "sftp") else None
        )
        if m:
            return m.group(1).lower()
    m = next(
        (
            DEV_TCP.search(w)
            for w in cmd.argv + [r.target for r in cmd.redirects]
            if DEV_TCP.search(w)
        ),
        None,
    )
    return m.group(1).lower() if m else ""


def allowed(host: str, ctx: Context) -> bool:
    if not host:
        return False
    return any(
        host == h or (h.startswith("*.") and host.endswith(h[1:])) for h in ctx.allowed_hosts
    )


def _decoder(cmd: Cmd) -> bool:
    if cmd.name in ("base64", "base32", "basenc", "base58", "xxd", "uudecode", "openssl"):
        words = cmd.argv[1:]
        return cmd.name == "uudecode" or any(_DECODE_FLAGS.match(w) for w in words)
    if cmd.name == "rev" or (cmd.name == "printf" and "\\x" in " ".join(cmd.argv)):
        return True
    return cmd.name == "tr" and "n-za-m" in " ".join(cmd.argv).lower()


def fed(cmd: Cmd) -> list[Cmd]:
    out = list(cmd.upstream)
    for up in cmd.upstream:
        out.extend(c for _, _, cmds in up.subs for c in cmds)
    return out


def runs_input(cmd: Cmd) -> bool:
    """A shell or interpreter that runs what arrives on its standard input."""
    if cmd.name in SHELLS:
        string, ops, flags = shell_flags(cmd.argv)
        return string is None and ("-s" in flags or not ops or ops[0] in ("-", "/dev/stdin"))
    if cmd.name in INTERPRETERS:
        codes, script = interpreter_code(cmd.name, cmd.argv)
        return not codes and script in (None, "-", "/dev/stdin")
    return cmd.name in ("source", ".") and cmd.argv[1:2] in (["/dev/stdin"], ["-"])


def _network(c: Cmd) -> str:
    if c.name in DOWNLOADERS:
        return "download"
    if c.name in RAW_NET or any(DEV_TCP.search(r.target) for r in c.redirects):
        return "raw"
    return ""


@rule
def remote_code(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """A download or decoded payload piped, substituted or fed to a shell or interpreter."""
    kind = "a shell" if cmd.name in SHELLS else "an interpreter"
    if runs_input(cmd):
        feeding = fed(cmd)
        net = {_network(c) for c in feeding} - {""}
        if "download" in net:
            yield critical(
                f"download piped to {kind}",
                piped(cmd),
                "code from the network runs unread.",
                "Download the script, read it, then run it.",
            )
        elif "raw" in net:
            yield critical(
                "reverse shell: network input run by a shell",
                piped(cmd),
                "a remote host controls this shell.",
                "Never connect a shell to the network.",
            )
        elif any(_decoder(c) for c in feeding):
            yield critical(
                f"decoded payload run by {kind}",
                piped(cmd),
                "an encoded command hides what runs.",
                "Run the plain command instead.",
            )
    runner = cmd.name in SHELLS | INTERPRETERS | {"eval", "source", "."}
    for _, word, cmds in cmd.subs:
        net = {_network(c) for c in cmds} - {""}
        if not net and not any(_decoder(c) for c in cmds):
            continue
        if word == 0 or runner:
            what = "downloaded" if net else "decoded"
            yield critical(
                f"runs {what} code",
                cmd.text,
                f"the output of a {what} command is run as code.",
                "Save it, read it, then run it.",
            )


_CLUSTER = re.compile(r"^-[A-Za-z]{1,8}$")


def _download_outputs(cmd: Cmd) -> list[str]:
    out: list[str] = []
    argv = cmd.argv
    url = next((w for w in argv[1:] if URL.match(w)), "")
    name = url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1] if url else ""
    for i, word in enumerate(argv):
        nxt = argv[i + 1] if i + 1 < len(argv) else ""
        if word in ("-o", "--output") or (
            cmd.name == "wget" and word in ("-O", "--output-document")
        ):
            out.append(nxt)
        elif word.startswith(("--output=", "--output-document=")):
            out.append(word.split("=", 1)[1])
        elif cmd.name == "curl" and _CLUSTER.match(word) and word.endswith("o"):
            out.append(nxt)  # ``-sLo FILE``: short options clustered, the output last
        elif cmd.name == "curl" and (
            word == "--remote-name" or (_CLUSTER.match(word) and "O" in word)
        ):
            out.append(name)
    if cmd.name == "wget" and not out and name:
        out.append(name)
    out.extend(r.target for r in cmd.redirects if r.op in (">", ">>") and r.fd in (None, 1))
    return [normal(p).removeprefix("./") for p in out if p and p != "-"]


@program_rule
def download_then_run(prog: Program, ctx: Context) -> Iterator[Flag]:
    """A file downloaded, then run (``wget -O x && sh x``, ``curl -O … && ./x``)."""
    saved: set[str] = set()
    for cmd in prog.commands:
        if cmd.name in DOWNLOADERS:
            saved.update(_download_outputs(cmd))
            continue
        if not saved or not cmd.argv:
            continue
        targets = [cmd.argv[0]]
        if cmd.name in SHELLS | INTERPRETERS | {"source", ".", "chmod"}:
            targets = operands(cmd.argv)[:1] if cmd.name != "chmod" else []
        for target in targets:
            path = normal(target).removeprefix("./")
            if path in saved or (path.rsplit("/", 1)[-1] in saved and "/" in target):
                yield critical(
                    "downloads a file and runs it",
                    cmd.text,
                    f"{target} came from the network and runs unread.",
                    "Read the file before running it, or install through a package manager.",
                )
                return


@rule
def reverse_shell(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """/dev/tcp with a shell, ``nc -e``, ``socat exec:``, raw network tools piped to shells."""
    words = cmd.argv + [r.target for r in cmd.redirects]
    tcp = next((w for w in words if DEV_TCP.search(w)), None)
    if tcp is not None and _LOCAL_TCP.search(tcp):
        tcp = None  # ``exec 3<>/dev/tcp/127.0.0.1/6379``: a port check on this machine
    dup = any(r.op in (">&", "<&", "&>", "<>") for r in cmd.redirects)
    if tcp and (cmd.name in SHELLS | {"exec", "sh"} or dup or "-i" in cmd.argv):
        yield critical(
            "reverse shell",
            cmd.text,
            f"a shell's input and output go to {tcp}; a remote host controls it.",
            "Never connect a shell to the network.",
        )
    elif tcp and not LOCAL.match(host_of(cmd)):
        yield high(
            "raw network connection",
            cmd.text,
            f"it opens {tcp}.",
            "Use a normal client (curl) to a known host.",
        )
    flags = short_flags(cmd.argv)
    if cmd.name in ("nc", "ncat", "cryptcat", "pwncat") and (
        flags & {"-e", "-c", "--exec", "--sh-exec", "--lua-exec"}
    ):
        yield critical(
            "reverse or bind shell",
            cmd.text,
            f"{cmd.name} -e hands a program to whoever connects.",
            "Never connect a shell to the network.",
        )
    elif cmd.name == "socat" and any(re.match(r"^(?:exec|system):", w, re.I) for w in cmd.argv):
        yield critical(
            "reverse or bind shell",
            cmd.text,
            "socat exec: connects a program to the network.",
            "Never connect a shell to the network.",
        )
    elif cmd.name in RAW_NET and (
        any(runs_input(c) or c.name in SHELLS for c in cmd.upstream + cmd.downstream)
    ):
        yield critical(
            "reverse shell",
            cmd.text,
            "a shell is piped to a raw network connection.",
            "Never connect a shell to the network.",
        )
    elif cmd.name in ("nc", "ncat", "socat", "netcat") and (
        flags & {"-l", "--listen"} or any("listen" in w.lower() for w in cmd.argv)
    ):
        yield high(
            "opens a network listener",
            cmd.text,
            "anyone who connects can send or take data.",
            "Do not open listeners from an agent.",
        )
