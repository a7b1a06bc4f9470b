import urllib.parse

from flask import Flask, request

app = Flask(__name__)


@app.route("/eval-raw")
def eval_raw():
    query = request.query_string.decode("utf-8")
    expr = urllib.parse.unquote(query.split("=", 1)[-1])
    return str(eval(expr))
