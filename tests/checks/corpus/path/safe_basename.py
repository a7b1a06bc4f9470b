import os

from flask import Flask

app = Flask(__name__)
BASE = "/srv/app/files"


@app.route("/files/<name>")
def read_file(name):
    with open(os.path.join(BASE, os.path.basename(name))) as fh:
        return fh.read()
