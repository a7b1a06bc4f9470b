import json

from flask import Flask, request

app = Flask(__name__)


@app.route("/profile")
def profile():
    prefs = json.loads(request.cookies.get("prefs", "{}"))
    return {"theme": prefs.get("theme")}
