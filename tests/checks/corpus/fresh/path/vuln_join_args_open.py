import os

from flask import Flask, request

app = Flask(__name__)

UPLOAD_ROOT = "/srv/uploads"


@app.route("/download")
def download():
    name = request.args.get("name", "")
    full = os.path.join(UPLOAD_ROOT, name)
    with open(full, "rb") as fh:
        data = fh.read()
    return data, 200, {"Content-Type": "application/octet-stream"}
