import shelve

from flask import Flask, request

app = Flask(__name__)


@app.get("/profile")
def profile():
    with shelve.open("/var/data/" + request.args["store"]) as db:
        return dict(db.get("profile", {}))
