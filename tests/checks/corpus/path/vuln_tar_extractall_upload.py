import tarfile

from flask import Flask, request

app = Flask(__name__)


@app.post("/themes")
def upload_theme():
    archive = tarfile.open(fileobj=request.files["theme"].stream)
    archive.extractall("/srv/themes")
    return "installed"
