import subprocess

from flask import Flask, request

app = Flask(__name__)


@app.route("/shell-00501", methods=["GET"])
def shell_00501():
    param = ""
    for name in request.args.keys():
        values = request.args.getlist(name)
        if "trigger" in values:
            param = name
            break
    subprocess.run("echo " + param, shell=True)
    return "ok"
