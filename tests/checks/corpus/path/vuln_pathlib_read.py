from pathlib import Path

from flask import Flask, request

app = Flask(__name__)
ROOT = Path("/srv/notes")


@app.route("/note")
def note():
    return (ROOT / request.args["p"]).read_text()
