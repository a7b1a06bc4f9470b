import os

from flask import Flask, abort, request

app = Flask(__name__)

BASE = os.path.realpath("/srv/static")


@app.route("/static-file")
def static_file():
    requested = request.args.get("path", "")
    full = os.path.realpath(os.path.join(BASE, requested))
    if os.path.commonpath([BASE, full]) != BASE:
        abort(403)
    with open(full, "rb") as fh:
        return fh.read()
