import subprocess

from flask import Flask, request

app = Flask(__name__)


@app.route("/list")
def listing():
    options = {"dir": request.args.get("dir"), "flags": "-la"}
    cmd = "ls %s %s" % (options["flags"], options["dir"])
    subprocess.call(cmd, shell=True)
    return "done"
