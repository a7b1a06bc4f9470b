import yaml
from flask import Flask, request

app = Flask(__name__)


@app.route("/validate", methods=["POST"])
def validate():
    document = yaml.safe_load(request.get_data())
    if not isinstance(document, dict):
        return {"valid": False}, 400
    return {"valid": True, "keys": sorted(document)}
