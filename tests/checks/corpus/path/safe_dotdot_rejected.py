from flask import Flask, abort, request

app = Flask(__name__)


@app.route("/asset")
def asset():
    name = request.args.get("name", "")
    if ".." in name or name.startswith("/"):
        abort(400)
    with open("/srv/assets/" + name, "rb") as fh:
        return fh.read()
