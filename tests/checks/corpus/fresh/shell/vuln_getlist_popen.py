import subprocess

from flask import Flask, request

app = Flask(__name__)


@app.route("/listing", methods=["GET"])
def listing():
    folders = request.args.getlist("folder")
    if not folders:
        return "no folder", 400
    target = folders[0]
    proc = subprocess.Popen("ls -la " + target, shell=True, stdout=subprocess.PIPE)
    out, _ = proc.communicate()
    return out
