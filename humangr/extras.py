"""Optional parts and the extras that install them: the review inbox (``humangr[inbox]``:
Starlette and uvicorn), the MCP server (``humangr[mcp]``: the official MCP SDK) and the framework
adapters (``humangr[openai-agents]``, ``humangr[langchain]``). Importing a
part without its extra is one clear error naming what to install."""

from __future__ import annotations

import importlib.util

from humangr.engine.errors import ConfigError

__all__ = ["EXTRAS", "require_extra"]

EXTRAS: dict[str, tuple[str, tuple[str, ...]]] = {
    "inbox": ("the review inbox", ("starlette", "uvicorn")),
    "mcp": ("the MCP server", ("mcp",)),
    "openai-agents": ("the OpenAI Agents SDK adapter", ("agents",)),
    "langchain": (
        "the LangChain / LangGraph adapter",
        ("langchain", "langchain_core", "langgraph"),
    ),
}
"""Each extra: what needs it, and the modules it installs."""


def _present(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def require_extra(extra: str) -> None:
    """Raise ``ConfigError`` unless every module of ``extra`` can be imported."""
    what, modules = EXTRAS[extra]
    missing = [module for module in modules if not _present(module)]
    if missing:
        raise ConfigError(
            f"{what} needs {', '.join(missing)}, which this installation lacks: "
            f"pip install 'humangr[{extra}]'"
        )
