import subprocess

from flask import Flask, request

app = Flask(__name__)


@app.route("/echo-list")
def echo_list():
    param = request.args.get("value", "")
    items = [param, "safe_value", "other"]
    items.pop(0)
    bar = items[0]
    subprocess.run("echo " + bar, shell=True)
    return "ok"
