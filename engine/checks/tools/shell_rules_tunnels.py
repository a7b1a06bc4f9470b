"""Tunnels (a shell rule family): a tunnel service that exposes this machine to the internet,
an SSH reverse forward (a remote host given a port into this one), and — the worst of them — a
reverse forward of this machine's own login port (SSH, remote desktop, VNC): a way back in
from outside, past the firewall. Options are read as ssh reads them, clustered
(``-NR0.0.0.0:4444:127.0.0.1:3389``) or apart (``-R spec``)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .shell_model import Cmd
from .shell_rule_kit import Context, Flag, critical, high, rule

__all__: list[str] = []

_TUNNEL = re.compile(
    r"^(?:code\s+tunnel|ngrok|cloudflared\s+tunnel|tailscale\s+funnel|"
    r"localtunnel|lt\s+--port|bore\s+local|frpc|chisel|sshuttle)"
)
_SSH_VALUED = frozenset("BbcDEeFIiJLlmOopQRSWw")
"""ssh's short options that take a value (the rest of the word, or the next word)."""
_LOGIN_PORTS = {"22": "SSH server", "3389": "remote desktop", "5900": "VNC", "5901": "VNC"}
_LOCAL = frozenset({"localhost", "127.0.0.1", "::1", "[::1]", "0.0.0.0"})


def _remote_forwards(argv: list[str]) -> list[str]:
    """The specs of every ``-R`` (or ``-o RemoteForward``) of an ssh command line."""
    specs: list[str] = []
    words = argv[1:64]
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word == "--" or not word.startswith("-") or word.startswith("--"):
            continue
        for at, letter in enumerate(word[1:], start=2):
            if letter not in _SSH_VALUED:
                continue
            value = word[at:]
            if not value and i < len(words):
                value, i = words[i], i + 1
            if letter == "R":
                specs.append(value)
            elif letter == "o" and value.lower().startswith("remoteforward"):
                # ``-o RemoteForward=2222 localhost:22``: the same forward, spaced
                spec = re.split(r"[=\s]+", value.strip(), maxsplit=1)[1:]
                specs.append(":".join(spec[0].split()) if spec else "")
            break
    return specs


def _login_forwarded(specs: list[str]) -> str | None:
    """The login service a ``[bind:]port:localhost:22`` forward exposes, if any."""
    for spec in specs:
        parts = spec.rsplit(":", 2)
        if len(parts) == 3 and parts[1].lower() in _LOCAL and parts[2] in _LOGIN_PORTS:
            return _LOGIN_PORTS[parts[2]]
    return None


@rule
def tunnels(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Tunnels that expose this machine to the internet; reverse port forwards."""
    specs = _remote_forwards(cmd.argv) if cmd.name == "ssh" else []
    login = _login_forwarded(specs)
    if login is not None:
        yield critical(
            "opens a way back in to this machine",
            cmd.text,
            f"the remote host gets a port that leads to this machine's {login}: whoever "
            "controls it can log in here from outside, past the firewall.",
            "Do not forward this machine's login ports to another host.",
        )
    elif specs or _TUNNEL.match(" ".join(cmd.argv)):
        yield high(
            "exposes this machine through a tunnel",
            cmd.text,
            "a remote party can reach local services or a shell.",
            "Do not open tunnels from an agent.",
        )
