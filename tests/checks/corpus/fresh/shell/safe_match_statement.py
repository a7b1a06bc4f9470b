import os

from flask import Flask, request

app = Flask(__name__)


@app.route("/shell-00502", methods=["POST"])
def shell_00502():
    param = request.form.get("shell00502", "")
    guess = "ABC"
    match guess[1]:
        case "A":
            bar = param
        case "B":
            bar = "bob"
        case "C" | "D":
            bar = param
        case _:
            bar = "bob's your uncle"
    os.system("echo " + bar)
    return "ok"
