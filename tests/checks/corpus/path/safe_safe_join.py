from flask import Flask, abort, request
from werkzeug.security import safe_join

app = Flask(__name__)


@app.route("/page")
def page():
    path = safe_join("/srv/pages", request.args.get("p", "index.html"))
    if path is None:
        abort(404)
    with open(path, encoding="utf-8") as fh:
        return fh.read()
