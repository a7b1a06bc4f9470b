import yaml
from flask import Flask, request

app = Flask(__name__)


@app.post("/upload")
def upload():
    document = yaml.unsafe_load(request.files["config"].read())
    return {"ok": bool(document)}
