import marshal

from flask import Flask, request

app = Flask(__name__)


@app.route("/state", methods=["PUT"])
def put_state():
    payload = request.get_data()
    state = marshal.loads(payload)
    return {"entries": len(state)}
