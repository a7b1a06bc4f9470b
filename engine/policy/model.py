"""The policy file as the engine holds it: frozen rules, suppressions and their effects.

A ``Policy`` is read once (``load_policy``) and never changes; ``decide`` evaluates it on an
action and ``suppress`` applies its suppressions to the local checks' findings.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from humangr.contracts import ToolKind

from .match import Glob

__all__ = [
    "MAX_INDEXED_TOOLS",
    "Effect",
    "MatchKey",
    "Policy",
    "PolicyDecision",
    "Rule",
    "Suppression",
]


class Effect(enum.StrEnum):
    """What a rule (or the policy's default) does with an action it matches."""

    ALLOW = "allow"
    """Approved without the LLM layers; the local checks still run and their rejection stands."""
    REVIEW = "review"
    """The seven layers review it, as without a policy."""
    ASK = "ask"
    """A human decides (``needs_review`` at once), unless the local checks reject it."""
    DENY = "deny"
    """Rejected at once."""


@dataclass(frozen=True, slots=True)
class MatchKey:
    """One key of a rule's ``[rule.match]``: an argument name, or a JSON pointer (``/body/to``)
    into the arguments, and the globs its value is matched with (any may match)."""

    key: str
    globs: tuple[Glob, ...]

    @property
    def pointer(self) -> tuple[str, ...] | None:
        """The pointer's reference tokens (RFC 6901, ``~1`` and ``~0`` decoded), or ``None``
        for a plain argument name."""
        if not self.key.startswith("/"):
            return None
        return tuple(t.replace("~1", "/").replace("~0", "~") for t in self.key[1:].split("/"))


@dataclass(frozen=True, slots=True)
class Rule:
    """One ``[[rule]]``: the filters (empty: any), the argument matches, the effect."""

    id: str
    effect: Effect
    agents: tuple[Glob, ...] = ()
    tools: tuple[Glob, ...] = ()
    kinds: frozenset[ToolKind] = frozenset()
    action_types: tuple[Glob, ...] = ()
    match: tuple[MatchKey, ...] = ()
    reason: str = ""
    line: int = 0
    """Where the rule starts in its file (for messages)."""
    tool_names: frozenset[str] | None = field(default=None, init=False, compare=False)
    """``tools`` as a set when every one is a literal name (the fast path of ``decide``)."""

    def __post_init__(self) -> None:
        if self.tools and all(g.literal for g in self.tools):
            object.__setattr__(self, "tool_names", frozenset(g.text for g in self.tools))

    def can_match(self, tool: str | None) -> bool:
        """Whether a call of ``tool`` could match (``None``: an action that is no tool call,
        which only rules asking nothing of a call can match); the other filters aside."""
        if tool is None:
            return not (self.tools or self.kinds or self.match)
        return self.tool_names is None or tool in self.tool_names

    def describe(self) -> str:
        """One line: the rule as the engine understood it (``humangr policy check``)."""
        parts = [f"{self.id}: {self.effect.value}"]
        for name, globs in (
            ("agents", self.agents),
            ("tools", self.tools),
            ("action_types", self.action_types),
        ):
            if globs:
                parts.append(f"{name}={[g.text for g in globs]}")
        if self.kinds:
            parts.append(f"kinds={sorted(k.value for k in self.kinds)}")
        for key in self.match:
            parts.append(f"{key.key}={[g.text for g in key.globs]}")
        if not (self.agents or self.tools or self.action_types or self.kinds or self.match):
            parts.append("(every action)")
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class Suppression:
    """One ``[[suppress]]``: a local-check finding it matches stays in the report, marked
    suppressed, and vetoes nothing."""

    id: str
    check: Glob
    """A glob on the check id (``secret``, ``shell-command``)."""
    match: Glob | None = None
    """A glob on a word of the finding's evidence (the line it was found on) or on its title;
    ``None``: any."""
    paths: tuple[Glob, ...] = ()
    """Globs on the finding's file (workspace-relative); empty: any file, or none."""
    reason: str = ""
    line: int = 0

    def describe(self) -> str:
        """One line: the suppression as the engine understood it."""
        parts = [f"{self.id}: suppress check={self.check.text}"]
        if self.match is not None:
            parts.append(f"match={self.match.text}")
        if self.paths:
            parts.append(f"paths={[g.text for g in self.paths]}")
        return " ".join(parts)


MAX_INDEXED_TOOLS = 1_024
"""Tool names whose candidate rules a policy keeps (agents use a few dozen)."""


@dataclass(frozen=True, slots=True)
class Policy:
    """A whole policy file: rules in file order (the first match decides), the default, the
    suppressions, and the file's name and sha256 (part of ``policy_version``)."""

    default: Effect = Effect.REVIEW
    rules: tuple[Rule, ...] = ()
    suppressions: tuple[Suppression, ...] = ()
    source: str = ""
    digest: str = ""
    version: int = 1
    _by_tool: dict[str | None, tuple[Rule, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def rules_for(self, tool: str | None) -> tuple[Rule, ...]:
        """The rules, in file order, that can match a call of ``tool`` (``None``: an action
        that is not a tool call): a rule naming only other tools is left out. Worked out once
        per name; at most ``MAX_INDEXED_TOOLS`` names are kept."""
        found = self._by_tool.get(tool)
        if found is None:
            found = tuple(r for r in self.rules if r.can_match(tool))
            if len(self._by_tool) < MAX_INDEXED_TOOLS:
                self._by_tool[tool] = found
        return found

    def describe(self) -> list[str]:
        """The policy as understood, one line per rule and suppression."""
        lines = [f"default: {self.default.value}"]
        lines += [f"rule {r.describe()}" for r in self.rules]
        lines += [f"suppress {s.describe()}" for s in self.suppressions]
        return lines


@dataclass(frozen=True, slots=True)
class PolicyDecision:
    """What the policy decided for one action: the effect, and the rule (none: the default)."""

    effect: Effect
    rule_id: str = ""
    reason: str = ""
    grant_id: str = ""
    """The standing approval (grant) that decided instead of the rule, if one did."""

    @property
    def decided_by(self) -> str:
        """``grant:<id>``, ``rule:<id>``, or ``policy default`` when no rule matched."""
        if self.grant_id:
            return f"grant:{self.grant_id}"
        return f"rule:{self.rule_id}" if self.rule_id else "policy default"

    @property
    def label(self) -> str:
        """How a report's reasons name what decided: ``grant X``, ``policy rule X``…"""
        if self.grant_id:
            return f"grant {self.grant_id}"
        return f"policy rule {self.rule_id}" if self.rule_id else "policy default"
