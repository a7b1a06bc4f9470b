import os

from flask import Flask, abort, request

app = Flask(__name__)


@app.route("/probe")
def probe():
    port = request.args.get("port", "")
    if not port.isdigit():
        abort(400)
    os.system("nc -z localhost " + port)
    return "ok"
