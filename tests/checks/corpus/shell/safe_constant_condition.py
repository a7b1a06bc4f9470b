import os

from flask import Flask, request

app = Flask(__name__)


@app.route("/echo")
def echo():
    param = request.args.get("value", "")
    num = 86
    bar = "This_should_always_happen" if (7 * 42) - num > 200 else param
    os.system("echo " + bar)
    return "ok"
