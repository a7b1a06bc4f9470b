import os

from flask import Flask, request

app = Flask(__name__)


@app.route("/shell-00417", methods=["POST"])
def shell_00417():
    param = request.form.get("shell00417", "")
    num = 86
    if (7 * 42) - num > 200:
        bar = "This_should_always_happen"
    else:
        bar = param
    os.system("echo " + bar)
    return "done"
