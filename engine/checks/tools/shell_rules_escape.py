"""Rules about shells reached through other programs (the GTFOBins "Shell" and "Command"
functions, generalised): interactive shells started by a wrapper, an escape option, an
interpreter's code or typed keystrokes; shell paths handed to ordinary binaries; set-uid
copies of system binaries; native libraries loaded; what interpreter code does."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .shell_binaries import PASSIVE, PRIVILEGED, SYSTEM_BINARIES, TRANSPARENT
from .shell_catalogue import LAUNCHERS, SHELL_PATH, SHELLS, words
from .shell_model import Cmd, Program
from .shell_rule_kit import Context, Flag, critical, high, program_rule, rule
from .shell_wrappers import shell_flags

__all__: list[str] = []

_ESCAPE_WORD = re.compile(r"^(?:\^[A-Z])?[:\\@]?!|^:(?:sh|shell|terminal|py|lua|set)\b")
_LOCAL_COPY = re.compile(r"^(?:\./|/tmp/|/var/tmp/|/dev/shm/|\$\{?\w+\}?/)[^/]+$")
_LIBRARY = re.compile(r"\.(?:so(?:\.\d+)*|dylib)$")
_BUILDERS = words(
    """
    gcc g++ cc c++ clang clang++ ld ar nm objdump readelf ldd strip patchelf file cp mv ln
    install rm ls chmod tar zip make cmake strings find grep ldconfig du stat sha256sum
    md5sum go cargo rustc pip python echo printf cat docker rsync scp touch otool codesign
    lipo auditwheel delocate
    """
)


_TTY = re.compile(r"^(?:/dev/(?:tty\w*|pts/\S*|stdin)|\$\(tty\)|`tty`|@stdin|-)$")


def _interactive(cmd: Cmd) -> bool:
    """A shell with no command, script or piped input: it reads the terminal (``0<&1``,
    ``</dev/tty`` and ``<$(tty)`` are the terminal too)."""
    string, ops, _ = shell_flags(cmd.argv)
    if string is not None or ops:
        return False
    if any(
        (r.op in ("<&", "<>") and r.fd in (None, 0)) or (r.op == "<" and _TTY.match(r.target))
        for r in cmd.redirects
    ):
        return True
    from_code = any(
        v.endswith(("code", "input", "escape")) or v.startswith(("keys typed", "lines after"))
        for v in cmd.via
    )
    if cmd.stdin is not None or (cmd.upstream and not from_code):
        return False  # fed by a pipe; a shell started by piped code is not fed by that pipe
    return not any(r.op == "<" and r.fd in (None, 0) for r in cmd.redirects)


@rule
def shells(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Interactive shells, and through what they were reached."""
    if cmd.name in SHELLS and cmd.argv and _interactive(cmd):
        flags = shell_flags(cmd.argv)[2]
        via = [v for v in cmd.via if v not in TRANSPARENT]
    elif cmd.shell_when_empty:
        flags, via = set(), [*(v for v in cmd.via if v not in TRANSPARENT), cmd.name]
    elif cmd.name in ("tmux", "screen", "tmate") and all(
        w in ("-S", "-L", "-f", "-q") or cmd.argv[i] in ("-S", "-L", "-f")
        for i, w in enumerate(cmd.argv[1:])
    ):
        yield high(
            "starts an interactive terminal session",
            cmd.text,
            f"{cmd.name} opens a shell the review cannot see.",
            "Run the commands directly.",
        )
        return
    else:
        return
    if any(v in PRIVILEGED for v in via):
        yield critical(
            "opens a root shell",
            cmd.text,
            "an interactive shell runs with root rights; anything can follow.",
            "Run the one command needed.",
        )
    elif via:
        yield critical(
            f"shell escape through {via[-1]}",
            cmd.text,
            f"{via[-1]} starts an "
            "interactive shell (a GTFOBins escape); what runs in it is never "
            "reviewed.",
            "Run the intended command directly.",
        )
    elif "-p" in flags:
        yield critical(
            "starts a privileged shell",
            cmd.text,
            "sh -p keeps set-uid rights.",
            "Do not start privileged shells.",
        )
    else:
        yield high(
            "starts an interactive shell",
            cmd.text,
            "what runs in it is never reviewed.",
            "Run the commands directly.",
        )


@rule
def shell_arguments(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """A shell's path handed to a program that runs it (``awk 'BEGIN{system("/bin/sh")}'``,
    ``tar … exec=/bin/sh``, ``nano -s /bin/sh``); keystrokes that escape a program."""
    if cmd.argv and _ESCAPE_WORD.match(cmd.argv[0]):
        yield high(
            "keystrokes that escape an interactive program",
            cmd.text,
            "lines such as !sh or :shell run commands from inside a pager, editor or client.",
            "Run the intended command directly.",
        )
        return
    if cmd.name in PASSIVE | SHELLS or cmd.name in LAUNCHERS or cmd.name.startswith("<"):
        return
    for word in cmd.argv[1:]:
        if SHELL_PATH.search(word):
            yield critical(
                f"shell escape through {cmd.name}",
                cmd.text,
                f"{cmd.name} is given a shell to run ({word[:60]}): a GTFOBins escape.",
                "Run the intended command directly.",
            )
            return


@rule
def local_copies(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """``./find``, ``/tmp/awk``: a copy of a system binary run from a working folder."""
    if cmd.argv and cmd.name in SYSTEM_BINARIES and _LOCAL_COPY.match(cmd.argv[0]):
        yield high(
            f"runs a local copy of {cmd.name}",
            cmd.text,
            "running a copied system "
            "binary from the working folder is how set-uid backdoors are used.",
            f"Run the system's {cmd.name}.",
        )


@rule
def libraries(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Native libraries loaded by programs that do not build them."""
    if cmd.name in _BUILDERS or cmd.name.startswith("<") or not cmd.argv:
        return
    words = cmd.argv[1:]
    if (
        (cmd.name == "enable" and "-f" in words)
        or any(_LIBRARY.search(w.split("=", 1)[-1]) for w in words)
        or (cmd.name == "openssl" and "-engine" in words)
    ):
        yield high(
            "loads a native library",
            cmd.text,
            f"code in the library runs inside {cmd.name}.",
            "Load only libraries the project builds.",
        )


@program_rule
def code_effects(prog: Program, ctx: Context) -> Iterator[Flag]:
    """What interpreter code does besides running commands."""
    for cmd, scan in prog.code:
        where = cmd.via[-1] if cmd.name.startswith("<") and cmd.via else f"{cmd.name} code"
        if scan.reverse_shell:
            title = "bind shell" if scan.bind_shell else "reverse shell"
            yield critical(
                f"{title} in {where}",
                cmd.text,
                "the code connects a shell to a network socket.",
                "Never connect a shell to the network.",
            )
        if scan.remote_code:
            yield critical(
                f"{where} downloads and runs code",
                cmd.text,
                "code fetched from the network is evaluated.",
                "Download, read, then run.",
            )
        if scan.decoded_code:
            yield critical(
                f"{where} runs a decoded payload",
                cmd.text,
                "encoded code is decoded and evaluated, hiding what runs.",
                "Run plain code.",
            )
        if scan.setuid:
            yield critical(
                f"{where} switches to root",
                cmd.text,
                "setuid(0) uses a capability or set-uid bit to become root.",
                "Do not change user ids.",
            )
        if scan.fork_bomb:
            yield critical(
                "fork bomb", cmd.text, "the code forks without end.", "Remove the fork loop."
            )
        if scan.server and not scan.reverse_shell:
            yield high(
                f"{where} serves files to the network",
                cmd.text,
                "a server started from code exposes local files.",
                "Do not start servers from code snippets.",
            )
        if scan.upload:
            yield high(
                f"{where} sends a file over the network",
                cmd.text,
                "a local file is read and sent.",
                "Check what is sent and where.",
            )
        if scan.library:
            yield high(
                f"{where} loads a native library",
                cmd.text,
                "code in the library runs in the interpreter.",
                "Load only libraries the project builds.",
            )


@rule
def disguised_shells(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """A shell copied or linked under another name; every program of a bin folder run."""
    ops = [w for w in cmd.argv[1:] if not w.startswith("-")]
    copies = cmd.name in ("cp", "ln", "install") and len(ops) >= 2
    if (
        copies
        and SHELL_PATH.search(ops[0])
        and not re.match(r"^/(?:usr/)?(?:local/)?s?bin/", ops[-1])
    ):
        yield high(
            "copies a shell under another name",
            cmd.text,
            "a shell disguised as another program is how restricted commands are escaped.",
            "Do not copy shells.",
        )
    if cmd.name == "run-parts" and any(re.match(r"^/(?:usr/)?(?:local/)?s?bin/?$", w) for w in ops):
        yield critical(
            "shell escape through run-parts",
            cmd.text,
            "it runs programs of a system bin folder (a shell among them).",
            "Run the one program needed.",
        )


_HELPERS = words(
    """
    ssh cat less more most bat batcat vim vi nvim nano emacs emacsclient code subl gedit
    kate true false : diff vimdiff meld delta diff-so-fancy colordiff zstd pigz gzip bzip2
    pbzip2 xz lz4 lzip lzma unzstd gunzip nc ncat connect-proxy corkscrew cloudflared aws
    gcloud gpg pass op echo printf head tail grep sort wc jq tree ls pbcopy xclip xsel
    wl-copy git ssh-askpass ksshaskpass keyring secret-tool sshpass tee sleep date
    mosh-server rsync scp sftp-server tput clear
    """
)
"""Programs an escape-capable option normally runs (``rsync -e ssh``, ``tar -I zstd``,
``PAGER=less``, ``ProxyCommand=ssh -W …``)."""
_ROUTE = re.compile(r"^keys typed into |(?: code| input)?(?: option| escape)?$")
_DATA_CLIENTS = words(
    """
    mysql psql sqlite3 duckdb clickhouse-client cqlsh mongo mongosh redis-cli sqlcmd bq
    """
)
"""Clients whose input is queries: calls in it are SQL, only its typed escapes run commands."""


@rule
def option_commands(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Any other program run through a command-valued option, environment variable or typed
    escape (the GTFOBins "Command" function): ``tar --checkpoint-action=exec=id``,
    ``sed -n '1e id'``, ``PAGER=./x git -p help``."""
    via = [v for v in cmd.via if v not in TRANSPARENT]
    if not via or not cmd.argv or cmd.name in SHELLS:
        return
    last = via[-1]
    if cmd.name in _HELPERS and (last.endswith(" option") or last == "typed escape"):
        return  # what such options normally run; input and keystrokes run nothing normally
    owner = _ROUTE.sub("", last)
    owner = last if owner == "typed" else owner
    if (
        last.endswith((" option", " escape"))
        or last.startswith("keys typed into ")
        or (last.endswith(" input") and owner not in _DATA_CLIENTS)
    ):
        yield high(
            f"runs a command through {owner}",
            cmd.text,
            f"{owner} is made to run {cmd.argv[0][:60]}; such escapes bypass command allow-lists.",
            "Run the command directly, if it is needed at all.",
        )
