import yaml
from flask import Flask, request

app = Flask(__name__)


@app.route("/pipeline", methods=["POST"])
def pipeline():
    spec = request.form.get("spec", "")
    steps = yaml.load(spec, yaml.Loader)
    return {"steps": len(steps or [])}
