import subprocess

from flask import Flask, request

app = Flask(__name__)


@app.route("/batch", methods=["POST"])
def batch():
    body = request.get_data(as_text=True)
    lines = body.split("\n")
    first = lines[0].strip()
    rc = subprocess.call(first, shell=True)
    return {"rc": rc}
