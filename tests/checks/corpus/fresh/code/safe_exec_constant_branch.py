from flask import Flask, request

app = Flask(__name__)


@app.route("/code-01303", methods=["POST"])
def code_01303():
    param = request.form.get("code01303", "")
    bar = "print('fixed')"
    if 4 * 4 < 10:
        bar = param
    exec(bar)
    return "ok"
