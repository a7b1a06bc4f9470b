import subprocess

from flask import Flask, request

app = Flask(__name__)


@app.route("/shell-01105", methods=["POST"])
def shell_01105():
    param = request.form.get("shell01105", "")
    possible = "ABC"
    guess = possible[1]
    if guess == "A":
        bar = param
    elif guess == "B":
        bar = "bob"
    elif guess in ("C", "D"):
        bar = param
    else:
        bar = "bob's your uncle"
    subprocess.call("echo " + bar, shell=True)
    return "ok"
