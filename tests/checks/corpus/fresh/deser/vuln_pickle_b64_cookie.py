import base64
import pickle

from flask import Flask, request

app = Flask(__name__)


@app.route("/preferences")
def preferences():
    raw = request.cookies.get("prefs")
    if raw is None:
        return {"theme": "light"}
    prefs = pickle.loads(base64.urlsafe_b64decode(raw.encode()))
    return {"theme": prefs.get("theme", "light")}
