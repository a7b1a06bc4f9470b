import pty

from flask import Flask, request

app = Flask(__name__)


@app.route("/console", methods=["POST"])
def console():
    log = request.form.get("log", "app.log")
    pty.spawn(["/bin/sh", "-c", "tail -n 100 /var/log/" + log])
    return "done"
