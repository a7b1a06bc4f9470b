import base64
import json
import zlib

from flask import Flask, request

app = Flask(__name__)
LOGO = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")


@app.post("/state")
def state():
    raw = zlib.decompress(base64.urlsafe_b64decode(request.form["state"]))
    data = json.loads(raw)
    return {"logo_size": len(LOGO), "keys": sorted(data)}
