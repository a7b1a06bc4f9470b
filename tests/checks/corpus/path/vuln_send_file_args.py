import os

from flask import Flask, request, send_file

app = Flask(__name__)
UPLOADS = "/srv/uploads"


@app.route("/download")
def download():
    return send_file(os.path.join(UPLOADS, request.args["f"]))
