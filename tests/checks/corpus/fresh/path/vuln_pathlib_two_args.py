import pathlib

from flask import Flask, request

import helpers.utils

app = Flask(__name__)


@app.route("/path-01502", methods=["POST"])
def path_01502():
    param = request.form.get("path01502", "")
    target = pathlib.Path(helpers.utils.TESTFILES_DIR, param)
    if target.exists():
        return target.read_bytes()
    return "missing", 404
