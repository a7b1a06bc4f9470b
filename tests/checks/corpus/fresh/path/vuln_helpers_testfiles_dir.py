from flask import Flask, request

import helpers.utils

app = Flask(__name__)


@app.route("/path-01501")
def path_01501():
    param = request.headers.get("path01501", "")
    bar = param.strip()
    file_name = helpers.utils.TESTFILES_DIR + bar
    try:
        with open(file_name, "rb") as fh:
            return fh.read()
    except OSError:
        return "could not open " + file_name, 404
