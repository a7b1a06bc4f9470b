from flask import Flask, request

app = Flask(__name__)


class Calculator:
    def evaluate(self, expression):
        return eval(expression)


@app.route("/calc")
def calc():
    return str(Calculator().evaluate(request.args["e"]))
