from flask import Flask, request

from app.db import cursor

app = Flask(__name__)


@app.route("/col")
def column():
    param = request.args.get("c", "")
    mapping = {"keyA": "name", "keyB": param}
    col = mapping["keyA"]
    cursor.execute(f"SELECT {col} FROM users")
    return {"values": cursor.fetchall()}
