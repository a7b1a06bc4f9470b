from flask import Flask, request

app = Flask(__name__)

FORMULAS = {"add": "a + b", "sub": "a - b", "mul": "a * b"}


@app.route("/apply")
def apply():
    formula = FORMULAS.get(request.args.get("op", ""), "a + b")
    a = int(request.args.get("a", 0))
    b = int(request.args.get("b", 0))
    return str(eval(formula, {"__builtins__": {}}, {"a": a, "b": b}))
