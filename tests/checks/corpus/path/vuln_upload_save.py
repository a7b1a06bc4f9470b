import os

from flask import Flask, request

app = Flask(__name__)
UPLOADS = "/srv/uploads"


@app.post("/upload")
def upload():
    f = request.files["file"]
    f.save(os.path.join(UPLOADS, f.filename))
    return "saved"
