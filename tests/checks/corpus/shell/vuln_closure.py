import os

from flask import Flask, request

app = Flask(__name__)


@app.route("/run")
def run():
    target = request.args.get("target", "")

    def ping():
        return os.system("ping -c 1 " + target)

    return {"status": ping()}
