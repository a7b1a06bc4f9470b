import hashlib

from flask import Flask, request

app = Flask(__name__)
CACHE = {}


@app.route("/render")
def render():
    key = hashlib.md5(request.full_path.encode("utf-8")).hexdigest()
    if key not in CACHE:
        CACHE[key] = expensive_render(request.args)
    return CACHE[key]


def expensive_render(args):
    return "<ul>" + "".join(f"<li>{k}</li>" for k in sorted(args)) + "</ul>"
