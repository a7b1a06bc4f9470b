import shutil

from flask import Flask, request

app = Flask(__name__)


@app.post("/themes")
def install_theme():
    upload = request.files["theme"]
    upload.save("/srv/tmp/theme.tar.gz")
    shutil.unpack_archive("/srv/tmp/theme.tar.gz", "/srv/themes", filter="data")
    shutil.make_archive("/srv/backups/themes", "gztar", "/srv/themes")
    return "installed"
