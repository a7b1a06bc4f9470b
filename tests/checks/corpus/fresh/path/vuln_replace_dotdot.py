import os

from flask import Flask, request

app = Flask(__name__)


@app.route("/theme", methods=["POST"])
def theme():
    name = request.form.get("theme", "default.css")
    cleaned = name.replace("../", "")
    with open(os.path.join("/srv/themes", cleaned)) as fh:
        return fh.read(), 200, {"Content-Type": "text/css"}
