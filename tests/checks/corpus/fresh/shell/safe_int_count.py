import os

from flask import Flask, request

app = Flask(__name__)


@app.route("/probe")
def probe():
    try:
        count = int(request.args.get("count", "1"))
    except ValueError:
        return "bad count", 400
    code = os.system(f"ping -c {count} status.example.org")
    return {"exit": code}
