from flask import Flask, request

from app.db import cursor

app = Flask(__name__)
ORDERS = {"asc", "desc"}


@app.route("/posts")
def posts():
    order = request.args.get("order", "asc")
    if order not in ORDERS:
        order = "asc"
    cursor.execute(f"SELECT * FROM posts ORDER BY created {order}")
    return {"posts": cursor.fetchall()}
