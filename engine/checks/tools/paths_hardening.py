"""A system or web configuration file changed only to make it safer, or given an ordinary log
rotation policy (for ``paths``): writing ``/etc`` or a web root is a protected change, unless
its text shows it only tightens.

- **Hardening:** every line the call adds is a comment, a brace, a neutral line (a
  certificate file, a ``location`` block, an ``include``, a local upstream) or a setting
  whose value is the safe one of a well-known security switch — SSH's
  ``PasswordAuthentication no``, ``PermitRootLogin no``; a broker's ``allow_anonymous false``,
  ``require_certificate true``; a web server's ``server_tokens off``, rate limits, TLS 1.2+
  only, security headers; PHP's and WordPress's debug output off — at least one such setting
  is added, and every line it removes is a comment or a setting it sets again.
  A whole file written (not an edit) counts only as a drop-in file of a ``.d`` folder: a
  file replaced whole may drop restrictions nobody sees.
- **Log rotation:** a ``logrotate`` policy of plain directives that keeps at least two
  generations and runs no script (``compresscmd``…) but, in a ``postrotate``/``prerotate``
  block, a service told to reopen its logs (``systemctl reload x``, ``systemctl kill -s HUP
  x``, ``pkill -x --signal SIGUSR1 x``, ``kill -HUP $(cat /run/x.pid)``).

A pure function of the call's text, bounded to ``_MAX`` characters.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .edit_formats import edit_pairs
from .files import PATH_ARGUMENTS
from .view import ToolView

__all__ = ["QUIET_TITLES", "hardens", "plain_rotation", "quiet_hardening"]

QUIET_TITLES = (
    "a system configuration file",
    "a system-wide folder",
    "a path outside the workspace",
)
"""The path verdicts (``Verdict.title`` endings) a hardening change does not deserve."""
_CONTENT = ("content", "contents", "file_text", "text", "new_content", "data")
_MAX = 20_000
_MAX_LINES = 200
_DIRECTIVE = re.compile(r"^([A-Za-z_][\w.-]{0,60})\s*(?:=|:|\s)\s*(.*?)\s*;?\s*$")
_DEFINE = re.compile(r"""^define\s*\(\s*['"](\w{1,60})['"]\s*,\s*(.{0,60}?)\s*\)\s*;?\s*$""")
_NO = frozenset({"no", "false", "off", "0"})
_YES = frozenset({"yes", "true", "on", "1"})
_HEADERS = re.compile(
    r"(?i)^\s*(?:strict-transport-security|x-frame-options|x-content-type-options"
    r"|content-security-policy|referrer-policy|permissions-policy)\b"
)


def _is(values: frozenset[str]) -> Callable[[str], bool]:
    return lambda v: v.strip("'\"").lower() in values


def _few(v: str) -> bool:
    return v.isdigit() and 0 < int(v) <= 6


def _tls(v: str) -> bool:
    words = v.replace(",", " ").lower().split()
    return bool(words) and all(w in ("tlsv1.2", "tlsv1.3") for w in words)


_SAFE: dict[str, Callable[[str], bool]] = {
    # SSH server
    "passwordauthentication": _is(_NO),
    "permitrootlogin": _is(
        frozenset({"no", "prohibit-password", "without-password", "forced-commands-only"})
    ),
    "permitemptypasswords": _is(_NO),
    "kbdinteractiveauthentication": _is(_NO),
    "challengeresponseauthentication": _is(_NO),
    "x11forwarding": _is(_NO),
    "allowagentforwarding": _is(_NO),
    "allowtcpforwarding": _is(_NO),
    "permittunnel": _is(_NO),
    "permituserenvironment": _is(_NO),
    "hostbasedauthentication": _is(_NO),
    "ignorerhosts": _is(_YES),
    "strictmodes": _is(_YES),
    "pubkeyauthentication": _is(_YES),
    "maxauthtries": _few,
    # message brokers
    "allow_anonymous": _is(_NO),
    "require_certificate": _is(_YES),
    "tls_version": _tls,
    # web servers and PHP
    "server_tokens": _is(_NO),
    "ssl_protocols": _tls,
    "limit_req": lambda v: True,
    "limit_req_zone": lambda v: True,
    "limit_conn": lambda v: True,
    "limit_conn_zone": lambda v: True,
    "add_header": lambda v: bool(_HEADERS.match(v)),
    "expose_php": _is(_NO),
    "display_errors": _is(_NO),
    "allow_url_include": _is(_NO),
    "allow_url_fopen": _is(_NO),
    "wp_debug": _is(_NO),
    "wp_debug_display": _is(_NO),
    "disallow_file_edit": _is(_YES),
    "force_ssl_admin": _is(_YES),
}
"""Security switches and the values that make them safer."""
_NEUTRAL = re.compile(
    r"^(?:cafile|capath|certfile|keyfile|ssl_certificate|ssl_certificate_key|ssl_trusted_certificate)"
    r"\s+/[\w./-]+$|^location\s[^{;]{1,200}\{$|^[{}]$|"
    r"^fastcgi_pass\s+(?:unix:/[\w./-]+|127\.0\.0\.1:\d+)$|^listener\s+\d+(?:\s+127\.0\.0\.1)?$|"
    r"^include\s+(?:snippets|conf\.d|mods-enabled|conf-enabled)/[\w.-]{1,80}\.conf$"
)
"""Lines that neither open nor weaken anything on their own (a listener is neutral only on
loopback, or when the same change requires client certificates). An ``include`` is not: the
file it pulls in is not read here — unless it is one of the server's own stock snippets, named
inside its configuration tree (``include snippets/fastcgi-php.conf``): installed with the
server, not by this call."""
_LOGROTATE = re.compile(
    r"^(?:daily|weekly|monthly|yearly|compress|nocompress|delaycompress|missingok|notifempty"
    r"|ifempty|copytruncate|dateext|sharedscripts|nosharedscripts|nomail|nocreate"
    r"|create(?:\s+0?[0-7]{3}(?:\s+[\w-]+){0,2})?|su\s+[\w-]+\s+[\w-]+|dateformat\s+\S+"
    r"|(?:maxsize|minsize|size)\s+\d+[kMG]?|rotate\s+(\d+)|maxage\s+(\d+)"
    r"|[/\w.*-]+(?:\s+[/\w.*-]+)*\s*\{|\})$"
)


def _lines(text: str) -> list[str]:
    return [ln.strip() for ln in text[:_MAX].splitlines()[:_MAX_LINES]]


def _comment(line: str) -> bool:
    return not line or line.startswith(("#", "//", ";"))


def _setting(line: str) -> tuple[str, str] | None:
    m = _DEFINE.match(line) or _DIRECTIVE.match(line)
    return (m.group(1).lower(), m.group(2)) if m is not None else None


def _hardens(added: list[str], removed: list[str]) -> bool:
    """Every added line is neutral or a safe setting (at least one), every removed line a
    comment or a setting set again."""
    keys: set[str] = set()
    certified = any(_setting(ln) == ("require_certificate", "true") for ln in added)
    for line in added:
        if _comment(line):
            continue
        if _NEUTRAL.match(line.rstrip(";").rstrip()):
            if line.startswith("listener") and not certified and "127.0.0.1" not in line:
                return False
            continue
        got = _setting(line)
        if got is None or got[0] not in _SAFE or not _SAFE[got[0]](got[1]):
            return False
        keys.add(got[0])
    if not keys:
        return False
    for line in removed:
        got = None if _comment(line) else _setting(line)
        if not _comment(line) and (got is None or got[0] not in keys):
            return False
    return True


_SCRIPT = re.compile(r"^(?:postrotate|prerotate|firstaction|lastaction)$")
_SIG = r"(?:SIG)?(?:HUP|USR1|USR2)"
_REOPEN = re.compile(
    r"^(?:/usr)?(?:/s?bin/)?(?:"
    r"systemctl\s+(?:(?:reload|try-reload-or-restart|reload-or-restart)"
    r"|kill\s+(?:-s\s*|--signal[= ])" + _SIG + r")\s+[\w@.-]{1,80}"
    r"|pkill(?:\s+(?:-x|--exact|-" + _SIG + r"|(?:-s\s*|--signal[= ])" + _SIG + r")){1,3}"
    r"\s+[\w.-]{1,60}"
    r"|kill\s+-(?:s\s+)?" + _SIG + r"\s+(?:\$\(cat\s+|`cat\s+)/(?:var/)?run/[\w./-]{1,80}[)`]"
    r"|invoke-rc\.d\s+[\w.-]{1,60}\s+(?:rotate|reload)|service\s+[\w.-]{1,60}\s+(?:rotate|reload))"
    r"(?:\s*>\s*/dev/null)?(?:\s*2>\s*(?:&1|/dev/null))?(?:\s*(?:\|\||;)\s*true)?$"
)
"""A command that only tells a service to reopen its log files: a reload or a hang-up signal
(no restart, no other program)."""


def _rotation(text: str) -> bool:
    """``text`` is a plain log rotation policy keeping two or more generations."""
    seen = False
    script = False
    for line in _lines(text):
        if _comment(line):
            continue
        if script:
            script = line != "endscript"
            if script and _REOPEN.match(line) is None:
                return False
            continue
        if _SCRIPT.match(line):
            script = True
            continue
        m = _LOGROTATE.match(line)
        if m is None:
            return False
        kept = m.group(1) or m.group(2)
        if kept is not None and int(kept) < 2:
            return False
        seen = True
    return seen


def quiet_hardening(view: ToolView) -> bool:
    """Whether the write or edit ``view`` only hardens a configuration, or writes a plain log
    rotation policy (see the module)."""
    named = view.text(*PATH_ARGUMENTS)
    path = named[1].lower() if named is not None else None
    pairs = edit_pairs(view)
    if pairs is not None:
        added: list[str] = []
        removed: list[str] = []
        for old, new in pairs[1][:50]:
            before, after = _lines(old), _lines(new)
            added += [ln for ln in after if ln not in before]
            removed += [ln for ln in before if ln not in after]
        rotation = path is not None and "/logrotate" in path and _rotation("\n".join(added))
        return rotation or _hardens(added, removed)
    got = view.text(*_CONTENT)
    if got is None or len(got[1]) > _MAX or path is None:
        return False
    if "/logrotate" in path:
        return _rotation(got[1])
    # A whole file replaces what was there, and what it drops is not seen: only a drop-in
    # file of a ``.d`` folder (``sshd_config.d/``, ``conf.d/``) adds settings to the rest; a
    # web server's ``snippets/`` file adds them where a site includes it.
    return _DROP_IN.search(path) is not None and _hardens(_lines(got[1]), [])


_DROP_IN = re.compile(r"\.d/[^/]+$|/snippets/[^/]+\.conf$")
"""A drop-in file of a ``.d`` folder, or a web server's snippet (in force only where a site
includes it)."""


def hardens(added: list[str], removed: list[str]) -> bool:
    """Whether the stripped lines ``added`` (and ``removed``) of a configuration only set
    well-known security switches to their safe values (see the module)."""
    return _hardens(added, removed)


def plain_rotation(text: str) -> bool:
    """Whether ``text`` is a plain ``logrotate`` policy: two or more generations kept, no
    script but a log reopen (see the module)."""
    return _rotation(text)
