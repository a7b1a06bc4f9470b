import sqlite3

from flask import Flask, request

app = Flask(__name__)

COLUMNS = {"newest": "created_at DESC", "oldest": "created_at ASC", "title": "title ASC"}


@app.route("/posts")
def posts():
    order = COLUMNS.get(request.args.get("order", ""), "created_at DESC")
    conn = sqlite3.connect("blog.db")
    rows = conn.execute("SELECT id, title FROM posts ORDER BY " + order).fetchall()
    return {"posts": rows}
