from flask import Flask, request
from ruamel.yaml import YAML

app = Flask(__name__)


@app.route("/workflow", methods=["POST"])
def workflow():
    yaml = YAML(typ="unsafe")
    spec = yaml.load(request.get_data(as_text=True))
    return {"jobs": len(spec.get("jobs", {}))}
