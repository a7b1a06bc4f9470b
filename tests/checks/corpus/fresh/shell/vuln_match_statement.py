import os

from flask import Flask, request

app = Flask(__name__)


@app.route("/shell-00503", methods=["POST"])
def shell_00503():
    param = request.form.get("shell00503", "")
    guess = "ABC"
    match guess[2]:
        case "A":
            bar = "alice"
        case "B":
            bar = "bob"
        case "C" | "D":
            bar = param
        case _:
            bar = "bob's your uncle"
    os.system("echo " + bar)
    return "ok"
