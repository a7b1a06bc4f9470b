import os

from flask import Flask, request

app = Flask(__name__)
app.config["UPLOAD_FOLDER"] = "/srv/uploads"


@app.route("/upload-many", methods=["POST"])
def upload_many():
    saved = []
    for item in request.files.getlist("documents"):
        destination = os.path.join(app.config["UPLOAD_FOLDER"], item.filename)
        item.save(destination)
        saved.append(item.filename)
    return {"saved": saved}
