"""Where a GitHub Actions step sends the repository's secrets, for ``ci_workflow``.

The shell checks read a run step with its ``${{ … }}`` expressions blanked out, so they cannot
know which words are secrets. Here each ``${{ secrets.X }}`` — and each ``$X`` of an ``env``
variable holding one — becomes a marked word, the step is read by the same shell reader
(``shell_unwrap``), and the network commands holding a marked word are judged by where the
secret goes:

- through a raw socket (``nc``, ``/dev/tcp``), piped into an upload, or in a request's body or
  form data: critical — that is how secrets leave;
- to a capture or paste site or a bare IP address, wherever it sits: critical;
- in a URL's query, or its path: high (a human confirms the host is the secret's own
  service), except in the path of a service whose hooks carry their token there (Slack,
  Discord, Teams, Google Chat, a Telegram bot);
- in a header, as basic credentials, or as the whole URL (a webhook): nothing — the secret
  goes to the service it is for. A host in ``allowed_hosts`` is never a finding.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from humangr.contracts import Severity

from .base import Hit
from .tools.http_sites import allowed, host_in, is_capture, is_paste
from .tools.shell_binaries import DOWNLOADERS, RAW_NET
from .tools.shell_catalogue import words
from .tools.shell_model import Cmd
from .tools.shell_rules_net import DEV_TCP, URL, fed, host_of
from .tools.shell_unwrap import unwrap

__all__ = ["SECRET_EXPR", "secret_prints", "secret_sends"]

SECRET_EXPR = re.compile(
    r"\$\{\{\s{0,20}secrets\s{0,20}(?:\.\s{0,20}([\w-]{1,100})|\[\s{0,20}['\"]([\w-]{1,100})['\"]"
    r"\s{0,20}\])\s{0,20}\}\}",
    re.IGNORECASE,
)
_OTHER_EXPR = re.compile(r"\$\{\{.{0,300}?\}\}")
_MARK = "HGSECRET"
_MARKED = re.compile(_MARK + r"__(\w+?)__HG")
_IP = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}$|^\[?[0-9a-f:]+:[0-9a-f:]*\]?$")
_DATA = words(
    """
    -d -F -T --data --data-raw --data-binary --data-ascii --data-urlencode --json --form
    --form-string --post-data --body-data --upload-file -body -infile
    """
)
_QUIET = words(
    """
    -H -u --header --user --oauth2-bearer --proxy-user --password --http-password -headers
    -credential -token
    """
)
"""Options whose value goes to the service in a header or as its credentials."""
_HOOKS = (
    "hooks.slack.com",
    "discord.com",
    "discordapp.com",
    "api.telegram.org",
    "webhook.office.com",
    "chat.googleapis.com",
)
"""Services whose address's path carries their own token (a Slack, Discord, Teams or Google
Chat hook, a Telegram bot)."""
_VARIABLE = re.compile(r"\$\{?(\w{1,100})\}?")
_STDIN = re.compile(r"^@-$|^@/dev/stdin$|^-$|=@-$")
_FIX = (
    "Give the secret to the tool that needs it through `env:`, send it only in a header to "
    "its own service, or add the host to allowed_hosts if it is yours."
)


@dataclass(frozen=True, slots=True)
class _Send:
    severity: Severity
    where: str


def _option(word: str) -> str:
    """An option as the tables write it: short ones as they are (curl's ``-F`` is not ``-f``),
    a cluster's last letter (``-sd``: ``-d`` takes the value), long and PowerShell ones
    (``-Body``) in lower case."""
    if len(word) <= 2:
        return word
    if word.startswith("--") or re.match(r"^-[A-Z][a-z]", word):
        return word.lower()
    m = re.match(r"^-[sSfLkviqgN]+([dFTHu])$", word)
    return "-" + m.group(1) if m else word


def _position(argv: list[str], i: int) -> str:
    """Where ``argv[i]`` (holding a secret) puts it: data, quiet, path, query or unknown."""
    word = argv[i]
    if word.startswith("-") and "=" in word:
        option = _option(word.partition("=")[0])
        return "data" if option in _DATA else "quiet" if option in _QUIET else "unknown"
    previous = argv[i - 1] if i > 1 and argv[i - 1].startswith("-") else ""
    if _option(previous) in _DATA:
        return "data"
    if _option(previous) in _QUIET:
        return "quiet"
    if word.startswith(_MARK):
        return "quiet"  # the secret is the address (a webhook): it goes to its own service
    if URL.match(word):
        query = re.search(r"[?#]", word)
        return "query" if query and word.find(_MARK) > query.start() else "path"
    if re.match(r"^[\w-]+:(?!=)", word):
        return "quiet"  # httpie's ``Header:value``
    if re.match(r"^[\w-]+:?=", word):
        return "data"  # httpie's ``field=value``
    return "unknown"


def _judge(cmd: Cmd, hosts: frozenset[str]) -> _Send | None:
    raw = cmd.name in RAW_NET or any(DEV_TCP.search(r.target) for r in cmd.redirects)
    if not raw and cmd.name not in DOWNLOADERS:
        return None
    host = host_of(cmd)
    if host and allowed(host, hosts):
        return None
    piped = any(_MARK in w for c in fed(cmd) for w in c.argv) or _MARK in (cmd.stdin or "")
    marked = [i for i, w in enumerate(cmd.argv) if _MARK in w and i > 0]
    if raw and (piped or marked or any(_MARK in r.target for r in cmd.redirects)):
        return _Send(Severity.CRITICAL, "to a raw network connection")
    if piped and any(_STDIN.search(w) for w in cmd.argv):
        return _Send(Severity.CRITICAL, f"piped into an upload to {host or 'a remote host'}")
    if not marked:
        return None
    if host and (is_capture(host) or is_paste(host) or _IP.match(host)):
        return _Send(Severity.CRITICAL, f"to {host}, a capture site or bare address")
    positions = {_position(cmd.argv, i) for i in marked}
    if "data" in positions:
        return _Send(Severity.CRITICAL, f"in the body of a request to {host or 'a remote host'}")
    if "query" in positions or ("path" in positions and not host_in(host, _HOOKS)):
        return _Send(Severity.HIGH, f"in the address of a request to {host or 'a remote host'}")
    return None


def _script(text: str, secret_env: frozenset[str]) -> str:
    """The step's script with each secret a marked word and other expressions blanked."""
    text = text.replace(_MARK, "HG_SECRET")  # the script's own text cannot pose as a mark
    text = SECRET_EXPR.sub(lambda m: f"{_MARK}__{m.group(1) or m.group(2)}__HG", text)
    text = _OTHER_EXPR.sub("GHA_EXPR", text)
    return _VARIABLE.sub(
        lambda m: f"{_MARK}__{m.group(1)}__HG" if m.group(1) in secret_env else m.group(0), text
    )


def secret_sends(
    script: str,
    lines: list[tuple[int, str]],
    secret_env: frozenset[str],
    hosts: frozenset[str],
) -> Iterator[tuple[int, Hit]]:
    """The network commands of a run step's ``script`` that send a secret, with the line of
    ``lines`` (the step's lines) each is on; the ``Hit`` has no file yet."""
    if not (SECRET_EXPR.search(script) or secret_env & set(_VARIABLE.findall(script))):
        return
    for cmd in unwrap(_script(script, secret_env)).commands:
        send = _judge(cmd, hosts)
        if send is None:
            continue
        name = next(
            (m.group(1) for c in [cmd, *fed(cmd)] for w in c.argv if (m := _MARKED.search(w))),
            "a secret",
        )
        line = next(
            (n for n, t in lines if cmd.name in t and (name in t or "secrets" in t)), lines[0][0]
        )
        yield (
            line,
            Hit(
                send.severity,
                "a repository secret sent out by a CI step",
                f"`{cmd.name}` sends {name} {send.where}: a workflow that sends a secret to a host "
                "hands it to whoever runs that host.",
                _FIX,
            ),
        )


_PRINTERS = frozenset({"echo", "printf", "print", "cat", "tee"})
_UNMASKERS = frozenset(
    {"sed", "rev", "base64", "base32", "xxd", "od", "hexdump", "tr", "awk", "fold", "cut",
     "perl", "python", "python3", "ruby", "node", "iconv", "openssl", "gzip", "split"}
)  # fmt: skip
"""Commands whose output is a secret changed enough that the log's masking misses it."""


def secret_prints(
    script: str, lines: list[tuple[int, str]], secret_env: frozenset[str]
) -> Iterator[tuple[int, Hit]]:
    """A secret a run step writes to the build log changed first (spaced out, reversed,
    encoded): the log masks only the exact value, so this one shows (critical). A secret
    changed on its way to a file or another command is not printed."""
    if not (SECRET_EXPR.search(script) or secret_env & set(_VARIABLE.findall(script))):
        return
    for cmd in unwrap(_script(script, secret_env)).commands:
        marked = next(
            (m.group(1) for w in cmd.argv if "$(" not in w and (m := _MARKED.search(w))), None
        )
        changed = _unmasked(cmd) if marked is not None and cmd.name in _PRINTERS else None
        if marked is None or changed is None:
            continue
        line = next((n for n, t in lines if marked in t), lines[0][0])
        yield (
            line,
            Hit(
                Severity.CRITICAL,
                f"a repository secret printed to the build log, changed by `{changed}`",
                f"`{cmd.name} … | {changed}` writes {marked} to the job's log in another form: "
                "the log hides only the exact value, so anyone who can read the log reads it.",
                "Never print a secret; pass it through `env:` to the tool that needs it.",
            ),
        )


def _unmasked(cmd: Cmd) -> str | None:
    """The command that changes ``cmd``'s output on its way to the log, or None when the output
    reaches the log unchanged, or goes to a file or to a command that is not a changer."""
    changed, last = None, cmd
    for _ in range(8):
        if not last.downstream:
            break
        last = last.downstream[0]
        if last.name not in _UNMASKERS:
            return None
        changed = changed or last.name
    if changed is None or last.redirects or last.downstream:
        return None
    return changed if not cmd.owner or cmd.owner in _PRINTERS else None
