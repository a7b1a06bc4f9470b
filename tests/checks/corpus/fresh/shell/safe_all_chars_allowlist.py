import os
import string

from flask import Flask, request

app = Flask(__name__)

HOST_CHARS = string.ascii_lowercase + string.digits + "-"


@app.route("/resolve-host")
def resolve_host():
    host = request.args.get("host", "")
    if not host or not all(ch in HOST_CHARS for ch in host):
        return "invalid host", 400
    return {"rc": os.system("host " + host + ".internal.example.com")}
