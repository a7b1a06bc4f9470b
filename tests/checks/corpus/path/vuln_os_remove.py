import os

from flask import Flask, request

app = Flask(__name__)


@app.post("/delete")
def delete():
    os.remove(os.path.join("/tmp/uploads", request.form["name"]))
    return "deleted"
