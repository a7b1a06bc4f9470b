from flask import Flask, request

app = Flask(__name__)


@app.route("/code-00703")
def code_00703():
    param = request.args.get("code00703", "")
    bar = param
    for _ in range(3):
        bar = "40 + 2"
    return str(eval(bar))
