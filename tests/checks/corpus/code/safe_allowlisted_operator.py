from flask import Flask, abort, request

app = Flask(__name__)
OPERATORS = {"+", "-", "*"}


@app.route("/op")
def op():
    a = int(request.args["a"])
    b = int(request.args["b"])
    operator = request.args["op"]
    if operator not in OPERATORS:
        abort(400)
    return str(eval(f"{a} {operator} {b}"))
