"""Prompt assets shipped as package data: the layer templates and the agents' prompts."""

from __future__ import annotations

from pathlib import Path
from typing import Final

__all__ = ["ASSETS_DIR", "LAYERS_DIR"]

ASSETS_DIR: Final = Path(__file__).resolve().parent
"""The directory of the prompt assets (this package)."""

LAYERS_DIR: Final = ASSETS_DIR / "layers"
"""The jinja2 templates of the seven reviewer layers and their shared protocol."""
