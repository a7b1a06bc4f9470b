from flask import Flask, request

app = Flask(__name__)


@app.route("/code-00313", methods=["POST"])
def code_00313():
    param = request.form.get("code00313", "")
    if len("four") == 4:
        bar = "2 * 3"
    else:
        bar = param
    return str(eval(bar))
