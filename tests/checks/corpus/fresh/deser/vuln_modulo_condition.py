import pickle

from flask import Flask, request

app = Flask(__name__)


@app.route("/deser-00121", methods=["POST"])
def deser_00121():
    param = request.get_data()
    if 10 % 3 == 1:
        bar = param
    else:
        bar = pickle.dumps("This should never happen")
    obj = pickle.loads(bar)
    return str(obj)
