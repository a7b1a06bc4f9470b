import urllib.parse

from flask import Flask, request

app = Flask(__name__)


@app.route("/avatar")
def avatar():
    raw = request.cookies.get("avatar", "default.png")
    name = urllib.parse.unquote(raw)
    with open("/srv/avatars/" + name, "rb") as fh:
        return fh.read(), 200, {"Content-Type": "image/png"}
