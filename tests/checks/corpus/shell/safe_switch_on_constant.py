import os

from flask import Flask, request

app = Flask(__name__)


@app.route("/echo")
def echo():
    param = request.args.get("value", "")
    guess = "ABC"
    switch_target = guess[1]
    if switch_target == "A":
        bar = param
    elif switch_target == "B":
        bar = "bob"
    else:
        bar = param
    os.system("echo " + bar)
    return "ok"
