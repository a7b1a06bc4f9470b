"""Rules about programs that run commands by design rather than by an option's value:
full-screen programs with a shell key or menu, ``shell`` subcommands, remote-control ports,
commands started as system services, document processors switched into their unsafe mode,
log daemons told to run a program, process memory dumped, archives extracted to absolute
paths, and scripts a command line writes, makes executable and hands to another program.
The per-command rules run through one dispatching rule, for the programs each is about
(with ``shell_rules_lists``' protected files given to list options)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .shell_binaries import PRIVILEGED, SHELL_TUIS, SHELL_VERBS
from .shell_catalogue import INTERPRETERS, LAUNCHERS
from .shell_model import Cmd, Program
from .shell_paths import PRIVILEGE_FILES, is_secret, normal
from .shell_rule_kit import Context, Flag, Rule, critical, high, operands, program_rule, rule
from .shell_rules_lists import LIST_OPTIONS, listed_reads

__all__: list[str] = []

_ASKING = frozenset({"-h", "--help", "-v", "-V", "--version", "help"})
_TEX = frozenset(
    {"tex", "latex", "pdflatex", "xelatex", "lualatex", "luatex", "pdftex", "xetex", "etex",
     "latexmk", "context", "mtxrun", "tectonic", "lambda"}
)  # fmt: skip
_ROFF = frozenset({"pic", "gpic", "dpic", "groff", "troff", "nroff", "grops", "eqn", "refer"})
_RSYSLOG = re.compile(
    r"(?::\w+\s*,\s*!?[\w-]+\s*,\s*\"[^\"]*\"|(?:^|(?<=['\"]))\s*[\w*,;.!=-]+\.[\w*!=-]+)"
    r"\s+\^[/\w.$~]\S*|\baction\s*\(\s*type\s*=\s*\"omprog\"",
    re.MULTILINE,
)
"""An rsyslog rule whose action runs a program: a filter (``:msg, contains, "x"`` or a
``facility.priority`` selector) followed by ``^program``, or the ``omprog`` module."""
_EXECUTABLE = re.compile(r"\+\w*x|\b[0-7]?[157][0-7]{2}\b")
_CORE = re.compile(r"\b(?:generate-core-file|gcore|dump\s+(?:binary\s+)?memory)\b")
_MEMORY = re.compile(r"^/proc/(?:\d+|self|\$\{?\w+\}?|\*)/mem$")
_RUNS_NOTHING = frozenset(
    {"chmod", "chown", "cat", "ls", "rm", "test", "[", "stat", "file", "echo", "printf",
     "mkdir", "touch", "git", "diff", "head", "tail", "wc", "cp", "mv", "ln", "shellcheck",
     "shfmt", "source", ".", "bash", "sh", "zsh", "dash", "ksh", "sudo", "xxd", "less",
     "more", "vim", "vi", "nano", "sha256sum", "md5sum", "du", "realpath", "readlink"}
)  # fmt: skip


def _privileged(cmd: Cmd) -> bool:
    return any(v in PRIVILEGED for v in cmd.via)


def interactive_programs(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Full-screen programs with a shell key or menu (``minicom``, ``ncdu``'s cousins, a
    file manager) and ``shell`` subcommands (``ansible-test shell``, ``poetry shell``)."""
    if not cmd.argv or cmd.name.startswith("<") or set(cmd.argv[1:]) & _ASKING:
        return
    verbs = SHELL_VERBS.get(cmd.name)
    ops = operands(cmd.argv)
    if cmd.name in SHELL_TUIS and (cmd.name != "aptitude" or not ops):
        what, why = cmd.name, "its menus or keys run shell commands and editors"
    elif (
        verbs is not None
        and ops[:1]
        and ops[0] in verbs
        and len(ops) <= 2
        and not {"-c", "--command", "--run", "--"} & set(cmd.argv)
    ):
        what, why = f"{cmd.name} {ops[0]}", "it opens an interactive shell"
    else:
        return
    flag = critical if _privileged(cmd) else high
    yield flag(
        f"starts {what}, which opens a shell",
        cmd.text,
        f"{why}; what is typed into it is never reviewed"
        + (", and it runs with root rights." if _privileged(cmd) else "."),
        "Run the one command needed directly.",
    )


def typed_editors(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """A key that opens an editor from a pager (``v`` in ``less``): the editor's ``:!sh``
    is one line away."""
    last = cmd.via[-1] if cmd.via else ""
    if cmd.name == "vim" and last.startswith("keys typed into "):
        owner = last.removeprefix("keys typed into ")
        yield high(
            f"opens an editor from {owner}",
            cmd.text,
            f"a key typed into {owner} starts an editor, from which any command runs.",
            "Do not drive interactive programs with typed keys.",
        )


def command_services(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Ports that take commands (``fzf --listen``) and commands run as system services
    (``systemd-run`` without ``--user``: the service manager runs them as root)."""
    words = [w.split("=", 1)[0] for w in cmd.argv[1:]]
    if cmd.name == "fzf" and {"--listen", "--listen-unsafe"} & set(words):
        yield high(
            "opens a port that runs commands",
            cmd.text,
            "fzf --listen takes actions over HTTP, and its actions (reload, execute) run "
            "commands for whoever connects.",
            "Run fzf without --listen.",
        )
    if cmd.name in ("systemd-run", "run0") and not {"--user", "--scope"} & set(words):
        yield high(
            f"runs a command as a system service through {cmd.name}",
            cmd.text,
            "the system service manager starts it, as root unless told otherwise, outside "
            "this session and its review.",
            "Run the command directly, or with systemd-run --user.",
        )


def unsafe_modes(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Document processors switched into the mode in which their input runs commands:
    ``latex -shell-escape`` (``\\write18``), ``pic -U``/``groff -U``, ``gs -dNOSAFER``."""
    words = set(cmd.argv[1:])
    tex = cmd.name in _TEX and bool(
        words & {"-shell-escape", "--shell-escape", "-enable-write18", "--enable-write18"}
    )
    roff = cmd.name in _ROFF and ("-U" in words or any(re.match(r"^-\w*U", w) for w in words))
    ghost = cmd.name in ("gs", "ghostscript", "gsc") and bool(words & {"-dNOSAFER", "-dDELAYSAFER"})
    if tex or roff or ghost:
        yield high(
            f"lets {cmd.name} input run commands",
            cmd.text,
            f"in this mode, commands written in the document {cmd.name} reads are run.",
            "Build the document in its safe mode.",
        )


@program_rule
def log_actions(prog: Program, ctx: Context) -> Iterator[Flag]:
    """rsyslog rules that run a program on matching messages (``:msg, contains, "x"
    ^/path/script``, ``action(type="omprog")``), typed or written to a file."""
    texts = [t for t in (prog.source, *prog.writes.values()) if "^" in t or "omprog" in t]
    found = next((m for t in texts for m in [_RSYSLOG.search(t[:65_536])] if m), None)
    if found is not None:
        yield high(
            "log rule that runs a program",
            found.group(0),
            "rsyslog runs the program for each matching message, whoever can write to the "
            "log can trigger it, and it runs as root.",
            "Do not add log actions that run programs.",
        )


def memory_dumps(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """A process's memory dumped or read (``gcore PID``, ``/proc/PID/mem``): keys, tokens and
    passwords in that process are in the dump."""
    targets = [*cmd.argv[1:], *(r.target for r in cmd.redirects if r.op == "<")]
    targets = [t.removeprefix("if=") for t in targets if t.endswith("/mem")]
    core = cmd.name == "gdb" and bool(_CORE.search(" ".join(cmd.argv[1:])))
    if cmd.name == "gcore" or core or any(_MEMORY.match(normal(t)) for t in targets):
        yield high(
            "dumps a process's memory",
            cmd.text,
            "the memory of a running process holds its secrets (keys, tokens, passwords).",
            "Do not dump process memory.",
        )


def absolute_extracts(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """``tar x -P`` keeps leading ``/`` in member names: the archive chooses which system
    files it overwrites."""
    if cmd.name not in ("tar", "bsdtar", "gtar") or len(cmd.argv) < 2:
        return
    first = cmd.argv[1]
    flags = set(cmd.argv[1:])
    letters = set(first.lstrip("-")) if not first.startswith("--") else set()
    for word in cmd.argv[2:]:
        if word.startswith("-") and not word.startswith("--"):
            letters |= set(word[1:])
    extract = "x" in letters or bool(flags & {"--extract", "--get"})
    absolute = "P" in letters or "--absolute-names" in flags
    if extract and absolute:
        yield high(
            "extracts an archive to absolute paths",
            cmd.text,
            "with -P the archive's member names decide which files anywhere are overwritten.",
            "Extract without -P, into a folder of the workspace.",
        )


@program_rule
def written_programs(prog: Program, ctx: Context) -> Iterator[Flag]:
    """A file this command line writes and makes executable, then hands (or its folder) to
    another program, which runs it: ``check_ssl_cert --curl-bin $TF``, a toolchain linked
    from a folder holding a written ``rustc``."""
    if not prog.writes:
        return
    written = {normal(p) for p in prog.writes}
    executable: set[str] = set()
    for cmd in prog.commands:
        if cmd.name == "chmod" and _EXECUTABLE.search(" ".join(cmd.argv)):
            executable.update(normal(w) for w in operands(cmd.argv) if normal(w) in written)
    if not executable:
        return
    for cmd in prog.commands:
        if cmd.name in _RUNS_NOTHING | INTERPRETERS or cmd.name in LAUNCHERS or not cmd.argv:
            continue
        if normal(cmd.argv[0]) in executable:
            continue
        for word in cmd.argv[1:]:
            value = normal(word.partition("=")[2] if word.startswith("-") else word)
            if value not in ("", ".", "/", "~", "..") and any(
                e == value or e.startswith(value.rstrip("/") + "/") for e in executable
            ):
                yield high(
                    f"hands a script it wrote to {cmd.name}",
                    cmd.text,
                    f"{value} was written and made executable by this command line; "
                    f"{cmd.name} runs it, so its content runs outside any allow-list.",
                    "Run the commands directly.",
                )
                return


def code_account_reads(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """The system's account files read by code or typed commands (``open("/etc/passwd")``,
    ``/open /etc/group`` in a REPL): reconnaissance of users and groups."""
    if not cmd.guessed or cmd.name != "cat" or not cmd.via:
        return
    path = next(
        (p for p in map(normal, cmd.argv[1:]) if PRIVILEGE_FILES.match(p) and not is_secret(p)),
        None,
    )
    if path is not None:
        yield high(
            f"reads {path} through {cmd.via[-1]}",
            cmd.text,
            "code reads the system's account files.",
            "Read only the workspace's files.",
        )


_CHECKS: dict[str, tuple[Rule, ...]] = {}
for _names, _check in (
    (SHELL_TUIS | frozenset(SHELL_VERBS), interactive_programs),
    (frozenset({"vim"}), typed_editors),
    (frozenset({"fzf", "systemd-run", "run0"}), command_services),
    (_TEX | _ROFF | {"gs", "ghostscript", "gsc"}, unsafe_modes),
    (frozenset({"gcore", "gdb"}), memory_dumps),
    (frozenset({"tar", "bsdtar", "gtar"}), absolute_extracts),
    (frozenset({"cat"}), code_account_reads),
    (frozenset(LIST_OPTIONS), listed_reads),
):
    for _name in _names:
        _CHECKS[_name] = (*_CHECKS.get(_name, ()), _check)


@rule
def programs_that_run_commands(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """The rules above, each run only for the programs it is about (one lookup a command)."""
    for check in _CHECKS.get(cmd.name, ()):
        yield from check(cmd, ctx)
    if cmd.name != "gcore" and "/mem" in cmd.text:
        yield from memory_dumps(cmd, ctx)
