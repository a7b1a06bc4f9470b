import os

from flask import Flask, request

app = Flask(__name__)


@app.route("/echo")
def echo():
    bar = request.args.get("value", "")
    if (500 / 42) + 196 > 200:
        bar = "This_should_always_happen"
    os.system("echo " + bar)
    return "ok"
