import os

from flask import Flask, request

app = Flask(__name__)


@app.route("/restart", methods=["POST"])
def restart():
    service = request.form["service"]
    pid = os.fork()
    if pid == 0:
        os.execlp("sh", "sh", "-c", "systemctl restart " + service)
    os.waitpid(pid, 0)
    return "restarted"
