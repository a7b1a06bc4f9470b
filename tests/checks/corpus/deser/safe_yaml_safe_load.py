import yaml
from flask import Flask, request

app = Flask(__name__)


@app.post("/import")
def import_config():
    config = yaml.safe_load(request.data)
    return {"sections": list(config)}
