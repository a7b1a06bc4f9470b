import shutil
import tempfile

from flask import Flask, request

app = Flask(__name__)


@app.post("/themes")
def install_theme():
    upload = request.files["theme"]
    tmp = tempfile.mktemp(suffix=".tar.gz")
    upload.save(tmp)
    shutil.unpack_archive(tmp, "/srv/themes")
    return "installed"
