import pickle

from flask import Flask, request

app = Flask(__name__)


@app.route("/models", methods=["POST"])
def upload_model():
    model_file = request.files.get("model")
    if model_file is None:
        return "missing model", 400
    model = pickle.load(model_file)
    return {"classes": list(getattr(model, "classes_", []))}
