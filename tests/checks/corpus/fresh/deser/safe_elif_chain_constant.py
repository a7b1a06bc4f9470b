import yaml
from flask import Flask, request

app = Flask(__name__)


@app.route("/deser-01404", methods=["POST"])
def deser_01404():
    param = request.form.get("deser01404", "")
    guess = "ABC"[0]
    if guess == "B":
        bar = param
    elif guess == "C":
        bar = param
    else:
        bar = "key: value"
    return str(yaml.load(bar, Loader=yaml.Loader))
