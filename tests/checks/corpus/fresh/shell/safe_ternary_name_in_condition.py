import os

from flask import Flask, request

app = Flask(__name__)


@app.route("/shell-01106")
def shell_01106():
    param = request.headers.get("shell01106", "")
    num = 86
    bar = "This_should_always_happen" if (7 * 42) - num > 200 else param
    os.system("echo " + bar)
    return "ok"
