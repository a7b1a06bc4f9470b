import yaml
from flask import Flask, request

app = Flask(__name__)


@app.route("/import", methods=["POST"])
def import_config():
    upload = request.files["config"]
    config = yaml.load(upload.stream, Loader=yaml.UnsafeLoader)
    return {"sections": list(config)}
