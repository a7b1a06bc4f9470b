"""Commands a program runs somewhere else, read from its words alone: a container's or a pod's
command (``docker exec app rm -rf /``, ``kubectl exec pod -- sh -c '…'``, ``lxc exec c --
…``), and the command a terminal multiplexer or emulator starts (``tmux new -d 'cmd'``,
``screen -dm bash -c 'cmd'``, ``xterm -e cmd``).

Pure functions over argument lists, bounded by the list's first ``_MAX_WORDS`` words; the
unwrapper walks what they return as it walks ``ssh host 'cmd'``.
"""

from __future__ import annotations

import re

from .shell_catalogue import SHELLS, program, words

__all__ = ["REACHING", "reached"]

_MAX_WORDS = 256
_CONTAINERS = frozenset({"docker", "podman", "nerdctl", "kubectl", "oc", "lxc", "incus"})
_COMPOSE = frozenset({"docker-compose", "podman-compose"})
_EXEC_VALUED = frozenset(
    {"-e", "--env", "--env-file", "-u", "--user", "-w", "--workdir", "--detach-keys",
     "-c", "--container", "-n", "--namespace", "--context", "--kubeconfig", "--cluster",
     "-f", "--filename", "--pod-running-timeout", "--request-timeout", "-s", "--server",
     "--project", "--index", "--cwd", "--group", "-p", "--project-name",
     "--profile", "--log-level", "-H", "--host", "--config", "--remote"}
)  # fmt: skip
"""Options of the container tools above (before or after the verb) that take the next word."""
_TERMINALS = frozenset(
    {"xterm", "uxterm", "urxvt", "rxvt", "konsole", "alacritty", "x-terminal-emulator",
     "terminator", "xfce4-terminal", "gnome-terminal", "kitty", "st", "lxterminal",
     "mate-terminal", "tilix", "qterminal", "foot", "wezterm"}
)  # fmt: skip
_TMUX_VERBS = frozenset(
    {"new", "new-session", "new-window", "neww", "split-window", "splitw", "respawn-pane",
     "respawnp", "respawn-window", "respawnw", "run-shell", "run", "display-popup", "popup"}
)  # fmt: skip
_TMUX_VALUED = words("-c -e -F -n -s -t -x -y -l -T -S -L -f")
_SCREEN_VALUED = words("-S -c -e -h -p -t -T -s -Logfile")
_THROWAWAY_STACK = re.compile(
    r"(?:^|[/._-])(?:dev|devel|local|test|tests|ci)[._-]|\.(?:dev|local|test)\.ya?ml$"
)
"""A compose file of a local development or test stack (``docker-compose.dev.yml``)."""
_REMOTE_VALUED: dict[str, frozenset[str]] = {
    "rsh": words("-l"),
    "remsh": words("-l"),
    "pdsh": words("-w -x -l -R -f -t -u -g -N"),
    "pssh": words("-h -H -l -p -o -e -t -x -X -O"),
    "parallel-ssh": words("-h -H -l -p -o -e -t -x -X -O"),
    "clush": words("-w -x -g -X -l -f -t -u -O"),
}
"""Remote shells that run the rest of their words as a command line on the hosts named by
their options (``pdsh -w``) or by their first operand (``rsh host``)."""
_BY_OPTION = frozenset({"pdsh", "pssh", "parallel-ssh", "clush"})
_ANSIBLE_SHELL = frozenset({"shell", "command", "raw", "script"})
REACHING = (
    _CONTAINERS
    | _COMPOSE
    | _TERMINALS
    | frozenset(_REMOTE_VALUED)
    | {"tmux", "screen", "byobu", "mosh", "salt", "salt-ssh", "ansible"}
)
"""Programs ``reached`` reads: a cheap test before any work."""


def _after_options(argv: list[str], start: int, valued: frozenset[str]) -> int:
    """The index of the first operand at or after ``start``, past options (and their values)."""
    i = start
    while i < len(argv):
        word = argv[i]
        if word == "--":
            return i + 1
        if not word.startswith("-") or word == "-":
            return i
        if word in valued or (len(word) > 2 and word[1] != "-" and f"-{word[-1]}" in valued):
            i += 1  # ``-dmS name``: a cluster whose last letter takes a value
        i += 1
    return i


def _container(name: str, argv: list[str]) -> list[str] | None:
    i = _after_options(argv, 1, _EXEC_VALUED)
    if name in ("docker", "podman", "nerdctl") and i < len(argv) and argv[i] == "compose":
        i = _after_options(argv, i + 1, _EXEC_VALUED)
        name = "docker-compose"
    if name in _COMPOSE and any(_THROWAWAY_STACK.search(w) for w in argv[1:i]):
        return None  # ``docker compose -f docker-compose.dev.yml exec …``: a local dev stack
    if (
        i >= len(argv)
        or argv[i] not in ("exec", "run")
        or (argv[i] == "run" and name not in _COMPOSE)
    ):
        return None
    if name in ("kubectl", "oc", "lxc", "incus") and "--" in argv[i:]:
        return argv[argv.index("--", i) + 1 :]
    target = _after_options(argv, i + 1, _EXEC_VALUED)
    return argv[target + 1 :] if target < len(argv) else None


def _bare_shell(argv: list[str]) -> bool:
    """``sh``, ``/bin/bash -l``: an interactive shell, judged by the interactive-shell rules."""
    return bool(argv) and program(argv[0]) in SHELLS and all(w.startswith("-") for w in argv[1:])


def _session(name: str, argv: list[str]) -> tuple[list[str], list[str]] | None:
    if name in _TERMINALS:
        if "--" in argv:
            return argv[argv.index("--") + 1 :], []
        for i, word in enumerate(argv[1:], 1):
            if word in ("-e", "-x", "--command", "--execute"):
                rest = argv[i + 1 :]
                if len(rest) == 1:
                    return [], rest
                return rest, []
        return None
    if name == "screen":
        i = _after_options(argv, 1, _SCREEN_VALUED)
        if any(
            w == "-X" or (w.startswith("-") and "X" in w and not w.startswith("--"))
            for w in argv[1:i]
        ):
            return None  # ``screen -X stuff``: typed keys, read by the escapes' rules
        return (argv[i:], []) if i < len(argv) else None
    i = _after_options(argv, 1, _TMUX_VALUED)  # tmux / byobu: global options, then the verb
    if i >= len(argv) or argv[i] not in _TMUX_VERBS:
        return None
    j = _after_options(argv, i + 1, _TMUX_VALUED)
    rest = argv[j:]
    return ([], [" ".join(rest)]) if rest else None


def _remote(name: str, argv: list[str]) -> str | None:
    if name == "mosh":
        return " ".join(argv[argv.index("--") + 1 :]) if "--" in argv else None
    if name in ("salt", "salt-ssh"):
        at = next((i for i, w in enumerate(argv) if w in ("cmd.run", "cmd.shell")), 0)
        return argv[at + 1] if at and at + 1 < len(argv) else None
    if name == "ansible":
        module = next(
            (argv[i + 1] for i, w in enumerate(argv[:-1]) if w in ("-m", "--module-name")),
            "command",
        )
        if module.rsplit(".", 1)[-1] not in _ANSIBLE_SHELL:
            return None
        return next((argv[i + 1] for i, w in enumerate(argv[:-1]) if w in ("-a", "--args")), None)
    i = _after_options(argv, 1, _REMOTE_VALUED[name])
    i += 0 if name in _BY_OPTION else 1  # ``rsh host cmd``: the host, then the command
    return " ".join(argv[i:]) if i < len(argv) else None


def reached(name: str, argv: list[str]) -> tuple[list[str], list[str], str] | None:
    """What ``name`` runs elsewhere: a command's words, command strings, and a label for the
    place (``docker exec``, ``tmux``); None when its words start nothing."""
    if name not in REACHING:
        return None
    argv = argv[:_MAX_WORDS]
    if name in _CONTAINERS or name in _COMPOSE:
        inner = _container(name, argv)
        return (inner, [], f"{name} exec") if inner and not _bare_shell(inner) else None
    if name in _REMOTE_VALUED or name in ("mosh", "salt", "salt-ssh", "ansible"):
        line = _remote(name, argv)
        return ([], [line], f"{name} remote") if line and line.strip() else None
    session = _session(name, argv)
    if session is None or not (session[0] or session[1]):
        return None
    return session[0], session[1], name
