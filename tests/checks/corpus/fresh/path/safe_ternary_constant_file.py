import codecs

from flask import Flask, request

app = Flask(__name__)


@app.route("/path-01504", methods=["POST"])
def path_01504():
    param = request.form.get("path01504", "")
    num = 86
    bar = "This_should_always_happen" if (7 * 42) - num > 200 else param
    with codecs.open("/srv/testfiles/" + bar, "r", "utf-8") as fh:
        return fh.read()
