import pickle

from flask import Flask, request

app = Flask(__name__)

DEFAULT_BLOB = pickle.dumps({"theme": "dark"})


@app.route("/deser-00803", methods=["POST"])
def deser_00803():
    param = request.get_data()
    blobs = {"user": param, "default": DEFAULT_BLOB}
    chosen = blobs["default"]
    return str(pickle.loads(chosen))
