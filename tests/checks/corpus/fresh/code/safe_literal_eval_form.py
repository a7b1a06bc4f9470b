import ast

from flask import Flask, request

app = Flask(__name__)


@app.route("/parse", methods=["POST"])
def parse():
    raw = request.form.get("value", "[]")
    try:
        value = ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        return "not a literal", 400
    return {"type": type(value).__name__}
