"""A build released to everyone, read from a business tool's name and arguments (or an HTTP
call's path and body) for ``business``: a build, version or release set live, promoted or
published on the public channel — Steam's ``betakey=public``, a store's ``track=production``,
an app's ``channel=stable``. Releases to a beta, internal or test channel are everyday."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from .business_words import Finding, Pair, acts

__all__ = ["public_release"]

_RELEASES = frozenset(
    {"live", "golive", "release", "releases", "publish", "promote", "rollout", "ship",
     "setlive"}
)  # fmt: skip
_BUILDS = frozenset(
    {"build", "builds", "version", "versions", "release", "releases", "bundle", "artifact",
     "app", "apps", "track", "tracks", "channel", "channels", "branch", "branches", "edit",
     "edits", "binary"}
)  # fmt: skip
_CHANNEL_KEYS = frozenset(
    {"channel", "track", "betakey", "beta_key", "branch", "ring", "release_channel",
     "release_track", "rollout_channel", "audience", "distribution", "stage"}
)  # fmt: skip
_PUBLIC = frozenset(
    {"public", "default", "stable", "production", "prod", "release", "live", "general", "ga",
     "everyone", "all"}
)  # fmt: skip
"""The channel every player or user gets (Steam's ``public`` branch, Play's ``production``
track)."""


def public_release(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """A build set live or published on the channel everyone gets."""
    if not (acts(words) and words & _RELEASES and words & _BUILDS):
        return
    channel = next(
        (
            v
            for k, v in pairs
            if k in _CHANNEL_KEYS and isinstance(v, str) and v.strip().lower() in _PUBLIC
        ),
        None,
    )
    if channel is not None:
        yield (
            f"releases a build to everyone ({channel.strip()[:30]} channel)",
            "every user downloads it at once; a broken or unreviewed build cannot be taken "
            "back from the devices that got it.",
            "Release to a beta or internal channel first, and let a person promote it.",
        )
