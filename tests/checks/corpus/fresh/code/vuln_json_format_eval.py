from flask import Flask, request

app = Flask(__name__)


@app.route("/rule", methods=["POST"])
def rule():
    data = request.get_json()
    expression = "{} {} {}".format(data["left"], data["op"], data["right"])
    result = eval(expression, {"__builtins__": {}})
    return {"result": result}
