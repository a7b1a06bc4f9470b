import jsonpickle
from flask import Flask, request

app = Flask(__name__)


@app.post("/resume")
def resume():
    state = jsonpickle.decode(request.form["state"])
    return {"step": state.step}
