from flask import Flask, request

app = Flask(__name__)


@app.route("/read")
def read():
    param = request.args.get("f", "")
    names = ["safe.txt", param, "other.txt"]
    names.pop(1)
    with open("/srv/data/" + names[1]) as fh:
        return fh.read()
