import os

from flask import Flask

app = Flask(__name__)
BASE = "/srv/app/files"


@app.route("/files/<path:name>")
def read_file(name):
    with open(os.path.join(BASE, name)) as fh:
        return fh.read()
