import json

from flask import Flask, request

app = Flask(__name__)


@app.post("/config")
def config():
    data = json.loads(request.data)
    return {"keys": sorted(data)}
