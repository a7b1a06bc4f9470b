import copy
import pickle

from flask import Flask, request

app = Flask(__name__)

DEFAULTS = {"theme": "light", "page_size": 20}


@app.route("/prefs/reset", methods=["POST"])
def reset():
    snapshot = pickle.dumps(DEFAULTS)
    prefs = pickle.loads(snapshot)
    prefs["user"] = request.form.get("user", "")
    return copy.deepcopy(prefs)
