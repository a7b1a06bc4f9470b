from flask import Flask, request

app = Flask(__name__)


@app.route("/op")
def op():
    a = int(request.args["a"])
    b = int(request.args["b"])
    operator = request.args["op"]
    return str(eval(f"{a} {operator} {b}"))
