"""The catalogue of protected paths, in the order rules are tried: the first rule that matches
a path decides, and a rule may say a path is fine (``-``: a public key in ``~/.ssh``, a
``.env.example``, a scratch file).

Choices that are not obvious:

- CI workflows, git-hook managers and agent settings are written legitimately in a repository,
  but what they hold runs later with the repository's secrets (or widens the agent's own
  permissions): HIGH, a human looks. Git hooks and ``.git/config`` run code on the next git
  command without any review: CRITICAL.
- ``.env`` files are read by agents to learn a project's configuration, and they hold its
  secrets: HIGH. Templates (``.env.example``) and test fixtures: nothing.
- Private keys found by name (``*.pem``, ``*.key``, ``id_rsa``; not ``cert``, ``chain``,
  ``ca.*``, ``*.pub``) are CRITICAL to read except in test folders, where fixtures live;
  writing one in the workspace is nothing (a development certificate).
- Whole system folders (``/etc``, ``/usr``, ``/opt``, ``C:\\Windows``) are nothing when the
  workspace given lies inside them (containers work in ``/usr/src/app``); their credential and
  start-up files count wherever the workspace is.
"""

from __future__ import annotations

from .paths_home import HOME_RULES
from .paths_repo import REPO_RULES
from .paths_rule import Rule
from .paths_system import SCRATCH_RULES, SYSTEM_RULES

__all__ = ["CATALOGUE"]

CATALOGUE: tuple[Rule, ...] = (*SCRATCH_RULES, *HOME_RULES, *SYSTEM_RULES, *REPO_RULES)
"""Every rule, most specific first."""
