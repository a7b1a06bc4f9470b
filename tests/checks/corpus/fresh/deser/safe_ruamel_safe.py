from flask import Flask, request
from ruamel.yaml import YAML

app = Flask(__name__)


@app.route("/workflow-safe", methods=["POST"])
def workflow_safe():
    yaml = YAML(typ="safe")
    spec = yaml.load(request.get_data(as_text=True))
    return {"jobs": len(spec.get("jobs", {}))}
