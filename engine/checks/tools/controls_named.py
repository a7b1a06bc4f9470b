"""A code host's security feature switched off by a tool's name, for the business readers.

The REST form is ``DELETE /repos/o/r/vulnerability-alerts`` or ``{"secret_scanning":
{"status": "disabled"}}``; an MCP tool says the same in its name
(``disable_vulnerability_alerts``, ``disableSecretScanning``, ``turn_off_dependabot``).
Turning one on, and reading its state, are everyday.
"""

from __future__ import annotations

from collections.abc import Iterator

__all__ = ["security_feature_off"]

Finding = tuple[str, str, str]

_OFF = frozenset({"disable", "deactivate", "off", "stop", "pause", "suspend", "unenroll"})
_FEATURES = (
    frozenset({"vulnerability", "alerts"}),
    frozenset({"vulnerability", "reporting"}),
    frozenset({"dependabot"}),
    frozenset({"secret", "scanning"}),
    frozenset({"push", "protection"}),
    frozenset({"code", "scanning"}),
    frozenset({"automated", "security", "fixes"}),
    frozenset({"advanced", "security"}),
)


def security_feature_off(words: set[str]) -> Iterator[Finding]:
    """A tool whose name switches a code host's security feature off (at most one)."""
    if not words & _OFF:
        return
    for feature in _FEATURES:
        if feature <= words:
            yield (
                "switches a security control off",
                f"`{' '.join(sorted(feature))}` stops: leaked secrets and vulnerable "
                "dependencies go unreported from now on.",
                "Let a repository's security owner change its security features.",
            )
            return
