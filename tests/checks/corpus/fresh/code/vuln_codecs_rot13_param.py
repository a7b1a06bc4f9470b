import codecs

from flask import Flask, request

app = Flask(__name__)


@app.route("/code-00701", methods=["POST"])
def code_00701():
    param = request.form.get("code00701", "")
    bar = codecs.encode(param, "rot13")
    bar = codecs.decode(bar, "rot13")
    result = eval(bar)
    return str(result)
