from pathlib import Path

from flask import Flask, request

app = Flask(__name__)

DOCS = Path("/srv/docs")


@app.route("/doc")
def doc():
    name = Path(request.args.get("name", "index.md")).name
    return (DOCS / name).read_text(encoding="utf-8")
