from flask import Flask, abort, request

app = Flask(__name__)
BASE = "/srv/app/files"


@app.route("/file")
def read_file():
    path = BASE + "/" + request.args.get("name", "")
    if not path.startswith(BASE):
        abort(403)
    with open(path) as fh:
        return fh.read()
