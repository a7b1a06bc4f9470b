import os

from flask import Flask, request

app = Flask(__name__)


@app.route("/say")
def say():
    message = request.values["msg"]
    os.spawnlp(os.P_WAIT, "bash", "bash", "-c", "echo " + message)
    return "said"
