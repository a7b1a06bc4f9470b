import pickle

from flask import Flask, request

app = Flask(__name__)


@app.route("/deser-00120", methods=["POST"])
def deser_00120():
    param = request.get_data()
    blobs = []
    blobs.append(param)
    blobs.append(pickle.dumps("This should always happen"))
    bar = blobs[1]
    obj = pickle.loads(bar)
    return str(obj)
