"""Rules about code fetched from elsewhere and run: packages installed from raw addresses or
plain HTTP, modules run straight from a URL (``deno run https://…``, ``npx URL``), and
PowerShell's download-and-run and encoded commands."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .http_sites import FORGES, PACKAGE_INDEXES
from .shell_model import Cmd, Program
from .shell_rule_kit import Context, Flag, critical, high, program_rule, rule
from .shell_rules_net import LOCAL, URL, allowed

__all__: list[str] = []


_INSTALLERS = frozenset({"pip", "pip3", "pipx", "uv", "npm", "pnpm", "yarn", "gem", "easy_install"})
_RAW_HOST = re.compile(r"^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:]+\]|0x[0-9a-f]+|\d{8,10})$", re.I)
_INDEX_OPTIONS = frozenset(
    {"-i", "-f", "--index-url", "--extra-index-url", "--find-links", "--registry", "--source"}
)
_SOURCE = re.compile(
    r"^(?:--(?:index-url|extra-index-url|find-links|registry|source|index|spec)=|-[if])?"
    r"(?:[\w.-]+\s*@\s*)?((?:git\+)?(?:https?|ftp)://[^\s]+)$",
    re.IGNORECASE,
)


@rule
def untrusted_install(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """A package installed from a raw address, or from a plain-HTTP index or archive: its
    install scripts run code that anyone on the path may have written."""
    if cmd.name not in _INSTALLERS:
        return
    argv = cmd.argv
    words = [
        f"{w}={argv[i + 1]}" if w in _INDEX_OPTIONS and i + 1 < len(argv) else w
        for i, w in enumerate(argv)
    ]
    for word in words[1:]:
        found = _SOURCE.match(word)
        if found is None:
            continue
        url = found.group(1)
        host = URL.match(url.removeprefix("git+"))
        name = host.group(1).lower() if host else ""
        if allowed(name, ctx) or LOCAL.match(name):
            continue
        raw = _RAW_HOST.match(name) is not None
        if url.startswith("git+") and not raw and not FORGES.search(name):
            yield high(
                "installs code from an unknown git host",
                cmd.text,
                f"{url[:80]} is no package index nor a known forge; what it serves is built "
                "and run here.",
                "Install from the package index, or add the host to allowed_hosts.",
            )
            return
        archive = _ARCHIVE.search(url.split("?", 1)[0]) is not None
        if not raw and archive and not FORGES.search(name) and not PACKAGE_INDEXES.search(name):
            yield high(
                "installs a package archive from an unknown host",
                cmd.text,
                f"{url[:80]} is no package index nor a known forge; its install scripts run "
                "whatever it serves.",
                "Install from the package index, or add the host to allowed_hosts.",
            )
            return
        if raw or url.lower().removeprefix("git+").startswith("http://"):
            yield (critical if raw else high)(
                "installs a package from an untrusted source",
                cmd.text,
                f"{url[:80]} is a raw address or plain HTTP; the package's install scripts run "
                "whatever it serves.",
                "Install from the package index over HTTPS, or add the host to allowed_hosts.",
            )
            return


_ARCHIVE = re.compile(r"\.(?:tgz|tar\.gz|tar\.bz2|tar\.xz|tar|zip|whl|gem)$", re.IGNORECASE)
_GO_MODULE = re.compile(r"^([a-z0-9-]+(?:\.[a-z0-9-]+)+)/[^\s@]+@[\w.+-]+$", re.IGNORECASE)
"""``go run host/path@version``: a module fetched and run."""
_REPO_SPEC = re.compile(r"^(?:github|gitlab|bitbucket|gist):[\w.-]+(?:/[\w.-]+)?|^git(?:\+\w+)?://")
"""``npx github:owner/repo``: a repository run as a package."""
_RUNNERS = {
    "deno": ("run",),
    "bun": ("run", "x"),
    "bunx": (),
    "npx": (),
    "pnpx": (),
    "go": ("run",),
}


@rule
def remote_module(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """``deno run https://…``, ``npx https://….tgz``: code run straight from a URL, with
    nothing on disk for anyone to read first."""
    verbs = _RUNNERS.get(cmd.name)
    if verbs is None:
        return
    plain = [w for w in cmd.argv[1:] if not w.startswith("-")]
    if verbs and (not plain or plain[0] not in verbs):
        return
    for word in plain[1:2] if verbs else plain[:1]:  # the module; later words are its own
        if _REPO_SPEC.match(word):
            yield high(
                "runs code from a repository",
                cmd.text,
                f"{word[:80]} is cloned, built and run at once; nothing reviewed it.",
                "Install a published package, or read the repository first.",
            )
            return
        host = URL.match(word)
        module = _GO_MODULE.match(word) if cmd.name == "go" else None
        where = module.group(1).lower() if module is not None else ""
        if where and not FORGES.search(where) and not allowed(where, ctx):
            yield high(
                "runs a module from an unknown host",
                cmd.text,
                f"{word[:80]} is fetched from a host no one vouches for and run at once.",
                "Run modules from known hosts, or add the host to allowed_hosts.",
            )
            return
        if host is None or LOCAL.match(host.group(1)) or allowed(host.group(1).lower(), ctx):
            continue
        yield high(
            "runs code straight from a URL",
            cmd.text,
            f"{word[:80]} is fetched and run at once; nothing reviewed it.",
            "Download it, read it, then run the reviewed copy (or add the host to allowed_hosts).",
        )
        return


_PS = frozenset({"powershell", "pwsh", "powershell.exe", "pwsh.exe"})
_PS_ENCODED = re.compile(r"^-(?:e|ec|en|enc|enco|encod|encode|encoded|encodedc\w*)$", re.I)
_PS_DOWNLOAD = re.compile(
    r"\b(?:iwr|irm|curl|wget|Invoke-WebRequest|Invoke-RestMethod|DownloadString|"
    r"DownloadFile|Net\.WebClient|Start-BitsTransfer)\b",
    re.I,
)
_PS_RUN = re.compile(r"""(?:^|[\s;|(&"'])(?:iex|Invoke-Expression|\.\s*\(|&\s*\()""", re.I)


@rule
def powershell_encoded(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """PowerShell running an encoded command (``-enc …``): what it does is hidden."""
    if cmd.name in _PS and any(_PS_ENCODED.match(w) for w in cmd.argv[1:]):
        yield critical(
            "runs an encoded PowerShell command",
            cmd.text,
            "the command is hidden in base64; what it does cannot be read here.",
            "Pass the command as plain text.",
        )


_PS_WORDS = re.compile(r"(?i)\b(?:iex|invoke-expression|powershell|pwsh)\b")


@program_rule
def powershell_download(prog: Program, ctx: Context) -> Iterator[Flag]:
    """A download PowerShell runs as code: ``iex (iwr https://…)``, ``IEX (New-Object
    Net.WebClient).DownloadString(…)`` — read over the whole text, which a POSIX reader
    cuts at PowerShell's parentheses."""
    source = prog.source
    if not _PS_WORDS.search(source) or not _PS_DOWNLOAD.search(source):
        return
    if _PS_RUN.search(source):
        yield critical(
            "runs a download as code",
            source[:120],
            "PowerShell fetches a script and runs it at once.",
            "Download it, read it, then run the reviewed copy.",
        )


_PASSWORD_OPTIONS = frozenset({"--password", "--http-password", "--ftp-password"})


def _password(cmd: Cmd) -> str | None:
    """A password written into a download tool's command line (``curl -u user:pw``,
    ``wget --password=pw``); one taken from a variable or a prompt is not written here."""
    argv = cmd.argv
    for i, word in enumerate(argv[1:], 1):
        value = argv[i + 1] if i + 1 < len(argv) else ""
        if cmd.name == "curl" and word in ("-u", "--user"):
            secret = value.partition(":")[2]
        elif cmd.name == "curl" and word.startswith("-u") and len(word) > 2:
            secret = word[2:].partition(":")[2]
        elif cmd.name == "wget" and word.partition("=")[0] in _PASSWORD_OPTIONS:
            secret = word.partition("=")[2] if "=" in word else value
        else:
            continue
        if secret and not secret.startswith("$"):
            return secret
    return None


@rule
def password_on_command_line(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """A literal password given to ``curl``/``wget``: sent to a raw address or over plain
    HTTP it goes to an unknown party; anywhere it stays in the transcript and the process list."""
    if cmd.name not in ("curl", "wget") or _password(cmd) is None:
        return
    found = next((m for w in cmd.argv[1:] if (m := URL.match(w))), None)
    url = found.group(0) if found else ""
    host = found.group(1).lower() if found else ""
    if LOCAL.match(host) or allowed(host, ctx):
        return
    if _RAW_HOST.match(host) or url.lower().startswith("http://"):
        yield critical(
            "sends a password to an unknown address",
            cmd.text,
            f"the password goes to {host or 'a host'}, a raw address or plain HTTP.",
            "Never send credentials to raw addresses or over plain HTTP.",
        )
    else:
        yield high(
            "a password on the command line",
            cmd.text,
            "it stays in the transcript, the shell history and the process list.",
            "Read it from a variable or a netrc file the command does not show.",
        )
