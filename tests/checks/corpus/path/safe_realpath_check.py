import os

from flask import Flask, abort, request, send_file

app = Flask(__name__)
BASE = os.path.realpath("/srv/app/files")


@app.route("/file")
def read_file():
    full = os.path.realpath(os.path.join(BASE, request.args.get("name", "")))
    if not full.startswith(BASE + os.sep):
        abort(403)
    return send_file(full)
