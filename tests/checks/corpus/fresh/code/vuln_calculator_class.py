from flask import Flask, request

app = Flask(__name__)


class Calculator:
    def __init__(self, precision=2):
        self.precision = precision

    def compute(self, expression):
        value = eval(expression)
        return round(value, self.precision)


@app.route("/calc", methods=["POST"])
def calc():
    expression = request.form.get("expr", "0")
    return {"result": Calculator().compute(expression)}
