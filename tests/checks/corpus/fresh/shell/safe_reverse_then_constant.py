import subprocess

from flask import Flask, request

app = Flask(__name__)


@app.route("/shell-00507")
def shell_00507():
    param = request.args.get("shell00507", "")
    bar = "safe!"
    options = {"keyA": "a_Value", "keyB": param, "keyC": "another_Value"}
    bar = options["keyC"][::-1]
    subprocess.run("echo " + bar, shell=True)
    return "ok"
