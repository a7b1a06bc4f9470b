import logging

from flask import Flask, request

from app.db import cursor

log = logging.getLogger(__name__)
app = Flask(__name__)


@app.route("/users")
def users():
    name = request.args["name"]
    log.info(f"running SELECT * FROM users WHERE name = {name}")
    cursor.execute("SELECT * FROM users WHERE name = %s", (name,))
    return {"users": cursor.fetchall()}
