import ast

from flask import Flask, request

app = Flask(__name__)


@app.route("/expr", methods=["POST"])
def expr():
    tree = ast.parse(request.form["expr"], mode="eval")
    code = compile(tree, "<expr>", "eval")
    return str(eval(code))
