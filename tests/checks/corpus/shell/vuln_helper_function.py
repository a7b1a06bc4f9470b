import subprocess

from flask import Flask, request

app = Flask(__name__)


def run(cmd):
    return subprocess.check_output(cmd, shell=True)


@app.route("/search")
def search():
    pattern = request.args["q"]
    return run("grep -n " + pattern + " /var/log/app.log")
