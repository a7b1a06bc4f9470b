import html
import os

from flask import Flask, request

app = Flask(__name__)


@app.route("/ping")
def ping():
    host = request.args.get("host", "localhost")
    safe_host = html.escape(host)
    status = os.system("ping -c 1 " + safe_host)
    return f"<p>{safe_host}: {status}</p>"
