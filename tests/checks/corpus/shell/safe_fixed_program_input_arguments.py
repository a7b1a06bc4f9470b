import subprocess

from flask import Flask, request

app = Flask(__name__)


@app.route("/probe")
def probe():
    extra = request.args.get("args", "").split()
    out = subprocess.check_output(["ffprobe", "-hide_banner"] + extra)
    return out
