import base64
import pickle

from flask import Flask, request

app = Flask(__name__)


@app.route("/deser-01403", methods=["POST"])
def deser_01403():
    param = ""
    for name in request.form.keys():
        if request.form.get(name) == "deser01403":
            param = name
            break
    obj = pickle.loads(base64.b64decode(param))
    return str(obj)
