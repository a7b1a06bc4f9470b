import subprocess

from flask import Flask, request

from helpers.thing_factory import create_thing

app = Flask(__name__)


@app.route("/shell-01102", methods=["POST"])
def shell_01102():
    param = request.form.get("shell01102", "")
    thing = create_thing()
    bar = thing.do_something(param)
    subprocess.run(["sh", "-c", "echo " + bar])
    return "ok"
