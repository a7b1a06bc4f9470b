import ast

from flask import Flask, request

app = Flask(__name__)


@app.route("/parse")
def parse():
    value = ast.literal_eval(request.args["v"])
    return {"type": type(value).__name__}
