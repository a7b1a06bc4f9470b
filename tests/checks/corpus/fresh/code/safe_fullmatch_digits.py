import re

from flask import Flask, abort, request

app = Flask(__name__)

ARITHMETIC = re.compile(r"[0-9+\- ]{1,64}")


@app.route("/sum")
def total():
    expr = request.args.get("expr", "0")
    if not ARITHMETIC.fullmatch(expr):
        abort(400)
    return str(eval(expr))
