from flask import Flask, request

app = Flask(__name__)


def compute(formula, values):
    return eval(formula, {"__builtins__": {}}, values)


@app.post("/formula")
def formula():
    body = request.get_json()
    return {"value": compute(body["formula"], body.get("values", {}))}
