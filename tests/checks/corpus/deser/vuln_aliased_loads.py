from pickle import loads as deserialize

from flask import Flask, request

app = Flask(__name__)


@app.post("/state")
def restore_state():
    state = deserialize(request.get_data())
    return {"restored": len(state)}
