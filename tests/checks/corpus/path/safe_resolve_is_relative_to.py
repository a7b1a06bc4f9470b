from pathlib import Path

from flask import Flask, request

app = Flask(__name__)
ROOT = Path("/srv/notes").resolve()


@app.route("/note")
def note():
    target = (ROOT / request.args["p"]).resolve()
    if not target.is_relative_to(ROOT):
        raise PermissionError(target)
    return target.read_text()
