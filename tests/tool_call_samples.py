"""Sample tool-call content shared by the display tests (CLI, inbox, MCP)."""

from __future__ import annotations

PICKLE_VIEW = (
    "import pickle\n"
    "from flask import Flask, request\n"
    "app = Flask(__name__)\n"
    '@app.route("/x", methods=["POST"])\n'
    "def x():\n"
    "    return str(pickle.loads(request.data))\n"
)
"""A Flask view unpickling request input: rejected as a diff and as a write alike."""
