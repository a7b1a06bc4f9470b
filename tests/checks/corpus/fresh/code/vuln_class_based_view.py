from flask import Flask, request
from flask.views import MethodView

app = Flask(__name__)


class FormulaView(MethodView):
    def post(self):
        formula = request.json["formula"]
        return {"value": self.evaluate(formula)}

    @staticmethod
    def evaluate(formula):
        return eval(formula, {"__builtins__": None}, {})


app.add_url_rule("/formula", view_func=FormulaView.as_view("formula"))
