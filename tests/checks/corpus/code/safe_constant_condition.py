from flask import Flask, request

app = Flask(__name__)


@app.route("/calc")
def calc():
    param = request.args.get("expr", "")
    expression = "2 + 2"
    if 3 * 7 < 5:
        expression = param
    return str(eval(expression))
