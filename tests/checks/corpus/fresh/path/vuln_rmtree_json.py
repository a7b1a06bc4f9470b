import os
import shutil

from flask import Flask, request

app = Flask(__name__)

WORKSPACES = "/srv/workspaces"


@app.route("/workspace", methods=["DELETE"])
def delete_workspace():
    body = request.get_json(silent=True) or {}
    directory = os.path.join(WORKSPACES, body.get("dir", "tmp"))
    shutil.rmtree(directory, ignore_errors=True)
    return "", 204
