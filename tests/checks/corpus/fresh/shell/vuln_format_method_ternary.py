import subprocess

from flask import Flask, request

app = Flask(__name__)


@app.route("/convert", methods=["POST"])
def convert():
    name = request.form["name"]
    fmt = request.form.get("format", "pdf")
    target = name if name else "untitled"
    command = "libreoffice --headless --convert-to {} {}".format(fmt, target)
    subprocess.Popen(command, shell=True).wait()
    return "converted"
