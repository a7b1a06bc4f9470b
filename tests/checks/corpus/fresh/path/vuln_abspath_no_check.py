import os

from flask import Flask, request

app = Flask(__name__)


@app.route("/logs")
def logs():
    name = request.args.get("file", "app.log")
    path = os.path.abspath(os.path.join("/var/log/app", name))
    with open(path) as fh:
        return fh.read()[-4000:]
