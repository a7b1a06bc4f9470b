import importlib

from flask import Flask, abort, request

app = Flask(__name__)
RENDERERS = {"markdown": "renderers.md", "plain": "renderers.plain"}


@app.post("/render")
def render():
    name = request.form["renderer"]
    if name not in RENDERERS:
        abort(400)
    renderer = importlib.import_module(RENDERERS[name])
    json_mod = importlib.import_module("json")
    return json_mod.dumps(renderer.render(request.form["text"]))
