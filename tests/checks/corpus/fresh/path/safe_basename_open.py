import os

from flask import Flask, request

app = Flask(__name__)

UPLOAD_ROOT = "/srv/uploads"


@app.route("/download-safe")
def download_safe():
    name = os.path.basename(request.args.get("name", ""))
    if not name:
        return "missing", 400
    with open(os.path.join(UPLOAD_ROOT, name), "rb") as fh:
        data = fh.read()
    return data
