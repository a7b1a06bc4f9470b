from flask import Flask, request

from app.db import cursor

app = Flask(__name__)


@app.route("/latest")
def latest():
    limit = int(request.args.get("limit", 10))
    cursor.execute(f"SELECT * FROM posts ORDER BY created DESC LIMIT {limit}")
    return {"posts": cursor.fetchall()}
