import os

from flask import Flask, request
from werkzeug.utils import secure_filename

app = Flask(__name__)
app.config["UPLOAD_FOLDER"] = "/srv/uploads"


@app.route("/upload", methods=["POST"])
def upload():
    saved = []
    for item in request.files.getlist("documents"):
        filename = secure_filename(item.filename or "")
        if not filename:
            continue
        item.save(os.path.join(app.config["UPLOAD_FOLDER"], filename))
        saved.append(filename)
    return {"saved": saved}
