"""Local checks of tool calls: what a shell command, SQL statement, HTTP request, file
operation or e-mail would do, read from the call's arguments (see docs/tool-calls.md)."""
