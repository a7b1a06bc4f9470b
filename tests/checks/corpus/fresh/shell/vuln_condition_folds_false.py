import os

from flask import Flask, request

app = Flask(__name__)


@app.route("/shell-00418", methods=["POST"])
def shell_00418():
    param = request.form.get("shell00418", "")
    num = 196
    if (500 / 42) + num > 300:
        bar = "This_should_never_happen"
    else:
        bar = param
    os.system("echo " + bar)
    return "done"
