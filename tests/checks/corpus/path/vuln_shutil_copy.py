import shutil

from flask import Flask, request

app = Flask(__name__)


@app.post("/backup")
def backup():
    body = request.get_json()
    shutil.copy(body["src"], "/backup/")
    return "copied"
