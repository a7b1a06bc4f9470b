"""Rendering reports, diffs and tool calls as text: shared by the CLI, the inbox and MCP."""
