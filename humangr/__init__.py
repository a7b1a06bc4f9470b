"""HUMANGR: a gate between AI agents and their side effects.

The installed package is ``humangr``; the repository's ``contracts/``, ``engine/``, ``actors/``
and ``agents/`` folders are its sub-packages ``humangr.contracts``, ``humangr.engine``,
``humangr.actors`` and ``humangr.agents``.
"""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
