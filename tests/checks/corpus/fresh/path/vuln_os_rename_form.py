import os

from flask import Flask, request

app = Flask(__name__)

ROOT = "/srv/files"


@app.route("/rename", methods=["POST"])
def rename():
    old = os.path.join(ROOT, request.form["from"])
    new = os.path.join(ROOT, request.form["to"])
    os.rename(old, new)
    return "renamed"
