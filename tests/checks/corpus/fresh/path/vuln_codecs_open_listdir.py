import codecs
import os

from flask import Flask, request

app = Flask(__name__)


@app.route("/folder")
def folder():
    sub = request.args.get("sub", "")
    base = os.path.join("/srv/shared", sub)
    listing = os.listdir(base)
    readme = os.path.join(base, "README")
    with codecs.open(readme, "r", "utf-8") as fh:
        return {"files": listing, "readme": fh.read()}
