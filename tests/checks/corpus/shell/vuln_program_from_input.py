import subprocess

from flask import Flask, request

app = Flask(__name__)


@app.route("/version")
def version():
    tool = request.args["tool"]
    out = subprocess.run([tool, "--version"], capture_output=True, text=True)
    return out.stdout
