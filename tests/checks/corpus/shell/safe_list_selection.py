import subprocess

from flask import Flask, request

app = Flask(__name__)


@app.route("/echo")
def echo():
    param = request.args.get("value", "")
    values = []
    values.append("safe")
    values.append(param)
    values.append("moresafe")
    values.remove(values[0])
    bar = values[1]
    subprocess.call("echo " + bar, shell=True)
    return "ok"
