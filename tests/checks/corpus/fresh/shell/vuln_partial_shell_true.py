import functools
import subprocess

from flask import Flask, request

app = Flask(__name__)

sh = functools.partial(subprocess.run, shell=True, capture_output=True, text=True)


@app.route("/dig")
def dig():
    name = request.args.get("name", "example.org")
    return sh("dig +short " + name).stdout
