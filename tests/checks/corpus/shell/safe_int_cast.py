import os

from flask import Flask, request

app = Flask(__name__)


@app.route("/seq")
def seq():
    count = int(request.args.get("n", "10"))
    os.system(f"seq {count} > /tmp/seq.txt")
    return "ok"
