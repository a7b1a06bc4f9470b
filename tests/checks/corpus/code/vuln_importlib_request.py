import importlib

from flask import Flask, request

app = Flask(__name__)


@app.post("/render")
def render():
    renderer = importlib.import_module(request.form["renderer"])
    return renderer.render(request.form["text"])
