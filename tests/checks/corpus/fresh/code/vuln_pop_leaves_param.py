from flask import Flask, request

app = Flask(__name__)


@app.route("/code-01301")
def code_01301():
    param = request.args.get("code01301", "")
    values_list = ["safe", param, "moresafe"]
    values_list.pop(0)
    bar = values_list[0]
    return str(eval(bar))
