import subprocess

from flask import Flask, request

app = Flask(__name__)


@app.route("/echo")
def echo():
    param = request.args.get("value", "")
    choices = {}
    choices["keyA"] = "a_value"
    choices["keyB"] = param
    bar = choices["keyA"]
    subprocess.call(f"echo {bar}", shell=True)
    return "ok"
