import io

from flask import Flask, request

app = Flask(__name__)


@app.route("/path-01503")
def path_01503():
    param = ""
    for name in request.headers.keys():
        if name.lower().startswith("x-doc-"):
            param = name[len("x-doc-"):]
            break
    with io.open("/srv/docs/" + param, "r", encoding="utf-8") as fh:
        return fh.read()
