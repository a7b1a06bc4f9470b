import os

from flask import Flask, send_file

app = Flask(__name__)

DOCS = "/srv/docs"


@app.route("/docs/<path:filename>")
def docs(filename):
    target = os.path.join(DOCS, filename)
    if not os.path.isfile(target):
        return "not found", 404
    return send_file(target)
