"""Code sent to a server to run that starts processes there: a script console, a debug
``eval`` endpoint or a code field whose code spawns a shell or a program
(``"…".execute()``, ``Runtime.getRuntime().exec``, ``Process.Start``, ``os.system``,
``child_process``). Whatever the language, a request that makes a server run a command is
remote code: critical when the path names an evaluator (``/scriptText``, ``/debug/eval``,
``/console``), high when only a code field carries it.

Code shown to a service as text (a gist's file ``content``, a chat message with code to
review) is not a field to run and is not read. Gated on a substring test. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from humangr.contracts import Severity

from .http_call import HttpCall

__all__ = ["remote_code"]

_WINDOW = 8_000
_MAX_STRINGS = 200
_GATE = ("exec", "process", "system", "popen", "/bin/", "spawn", "shell", "curl", "wget")
_SPAWN = re.compile(
    r"(?i)process\.start\s*\(|runtime\.getruntime\(\)\s*\.exec|\.execute\(\s*\)|"
    r"processbuilder\s*\(|\bos\.(?:system|popen|exec\w*)\s*\(|\bsubprocess\.\w+\s*\(|"
    r"child_process|\b(?:shell_exec|passthru|popen|proc_open)\s*\(|"
    r"\b(?:system|exec)\s*\(\s*[\"'`]|[\"'](?:/bin/|/usr/bin/)?(?:ba|z)?sh[\"']\s*,\s*[\"']-c|"
    r"\bspawn\s*\(\s*[\"'](?:/bin/)?(?:ba)?sh|"
    r"\b(?:curl|wget)\b[^|\n]{0,300}\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b"
)
"""Code that starts processes; a script's download piped into a shell
(``curl -s http://x/a.sh | bash``) runs what another host serves."""
_EVALUATOR = re.compile(
    r"(?i)/(?:eval|evaluate|script|scripttext|scripts/run|console|exec|execute|run[-_]?script|"
    r"groovy|repl)(?:/|$)"
)
_CODE_FIELD = re.compile(
    r"(?i)(?:^|[._\[\]'\"])(?:code|script|source|command|cmd|expression|expr|groovy|"
    r"snippet|payload)(?:$|[._\[\]'\"])"
)


def _strings(key: str, value: Any, depth: int = 0) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield key, value[:_WINDOW]
    elif depth < 8 and isinstance(value, dict):
        for k, v in list(value.items())[:64]:
            yield from _strings(f"{key}.{k}", v, depth + 1)
    elif depth < 8 and isinstance(value, list):
        for v in value[:64]:
            yield from _strings(key, v, depth + 1)


def remote_code(call: HttpCall) -> tuple[Severity, str] | None:
    """``(severity, title)`` when the request sends code that starts processes on the server
    (see the module's docstring), else None."""
    if call.url is None or call.method in ("GET", "HEAD", "OPTIONS", "DELETE"):
        return None
    evaluator = bool(_EVALUATOR.search(call.url.path[:500]))
    seen = 0
    for arg, value in call.payload:
        for key, text in _strings(arg, value):
            seen += 1
            if seen > _MAX_STRINGS:
                return None
            low = text.lower()
            if not any(g in low for g in _GATE):
                continue
            if not (evaluator or _CODE_FIELD.search(key) or '"code"' in low or '"script"' in low):
                continue
            if _SPAWN.search(text):
                where = call.url.path[:60] or "/"
                if evaluator:
                    return Severity.CRITICAL, f"sends code that runs commands to {where}"
                return Severity.HIGH, f"sends code that starts processes on the server ({where})"
    return None
