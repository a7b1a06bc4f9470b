import json

from flask import Flask

app = Flask(__name__)


@app.route("/settings")
def settings():
    with open("config/settings.json", encoding="utf-8") as fh:
        return json.load(fh)
