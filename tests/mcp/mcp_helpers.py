"""Start ``humangr mcp`` over stdio as an MCP client would, and the diffs the tests send."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

from mcp import ClientSession, StdioServerParameters, stdio_client, types

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 30.0

EVAL_DIFF = """\
--- a/app.py
+++ b/app.py
@@ -1,3 +1,7 @@
 from flask import Flask, request
 app = Flask(__name__)
+
+@app.route("/calc", methods=["POST"])
+def calc():
+    return str(eval(request.form["expr"]))
"""
"""``eval`` of request input on line 6 of app.py."""

CLEAN_DIFF = """\
--- a/app/util.py
+++ b/app/util.py
@@ -1,2 +1,2 @@
-def f(a): return a+1
+def increment(value: int) -> int:
+    return value + 1
"""


def humangr_command() -> tuple[str, list[str]]:
    """The installed ``humangr`` console script, or ``python -m engine.cli``."""
    script = Path(sys.executable).with_name("humangr")
    if script.exists():
        return str(script), []
    return sys.executable, ["-m", "humangr"]


@asynccontextmanager
async def mcp_session(*args: str, errlog: TextIO) -> AsyncIterator[ClientSession]:
    """``humangr mcp ARGS`` as a subprocess on stdio, with an initialized client session."""
    command, prefix = humangr_command()
    params = StdioServerParameters(command=command, args=[*prefix, "mcp", *args], cwd=ROOT)
    async with (
        stdio_client(params, errlog=errlog) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def data(result: types.CallToolResult) -> dict[str, Any]:
    """The structured result of a successful tool call (checked against its JSON text)."""
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    texts = [c.text for c in result.content if isinstance(c, types.TextContent)]
    assert json.loads(texts[-1]) == result.structured_content
    return result.structured_content


def resource_json(result: types.ReadResourceResult) -> Any:
    (content,) = result.contents
    assert isinstance(content, types.TextResourceContents)
    assert content.mime_type == "application/json"
    return json.loads(content.text)
