from flask import Flask, request

app = Flask(__name__)


@app.route("/code-01304")
def code_01304():
    param = request.cookies.get("code01304", "")
    reversed_once = "".join(reversed(param))
    bar = reversed_once[::-1]
    exec(bar)
    return "ok"
