from flask import Flask, request

app = Flask(__name__)
evaluate = eval


@app.get("/formula")
def formula():
    expr = request.args["expr"]
    return str(evaluate(expr))
