import base64
import json

from flask import Flask, request

app = Flask(__name__)


@app.route("/context")
def context():
    header = request.headers.get("X-Context", "")
    decoded = base64.b64decode(header) if header else b"{}"
    ctx = json.loads(decoded)
    return {"tenant": ctx.get("tenant")}
