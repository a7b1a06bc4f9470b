import subprocess

from flask import Flask, request

app = Flask(__name__)

COMMON = {"host", "user-agent", "accept", "accept-encoding", "connection"}


@app.route("/shell-00504")
def shell_00504():
    param = ""
    for name, _value in request.headers.items():
        if name.lower() in COMMON:
            continue
        param = name
        break
    subprocess.call(["sh", "-c", "echo " + param])
    return "ok"
