import pandas as pd
from flask import Flask, request

app = Flask(__name__)


@app.route("/frames", methods=["POST"])
def frames():
    frame = pd.read_pickle(request.files["frame"])
    return {"rows": len(frame)}
