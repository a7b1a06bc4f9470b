from flask import Flask, request

app = Flask(__name__)


@app.route("/code-00312", methods=["POST"])
def code_00312():
    param = request.form.get("code00312", "")
    if "abc".upper() == "ABC":
        bar = param
    else:
        bar = "'constant'"
    return str(eval(bar))
