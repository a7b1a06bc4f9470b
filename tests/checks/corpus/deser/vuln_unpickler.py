import pickle

from flask import Flask, request

app = Flask(__name__)


@app.post("/model")
def upload_model():
    model = pickle.Unpickler(request.files["model"]).load()
    return {"kind": type(model).__name__}
