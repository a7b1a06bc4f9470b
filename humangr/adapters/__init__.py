"""Adapters where agents' tool calls happen: the Claude Code hook, the OpenAI Agents SDK and
LangChain / LangGraph. Each is imported on its own (``humangr.adapters.langchain``); this
package imports no framework."""

__all__: list[str] = []
