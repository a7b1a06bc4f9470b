from flask import Flask, request

app = Flask(__name__)


@app.route("/code-00311")
def code_00311():
    param = request.args.get("code00311", "")
    values = [param, "1 + 1", "2 + 2"]
    del values[0]
    bar = values[0]
    return str(eval(bar))
