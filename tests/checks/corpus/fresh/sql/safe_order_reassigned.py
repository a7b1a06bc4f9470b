import sqlite3

from flask import Flask, request

app = Flask(__name__)

SORTABLE = ("name", "created_at", "price")


@app.route("/products")
def products():
    sort = request.args.get("sort", "name")
    if sort not in SORTABLE:
        sort = "name"
    direction = "DESC" if request.args.get("desc") == "1" else "ASC"
    conn = sqlite3.connect("catalog.db")
    rows = conn.execute(f"SELECT * FROM products ORDER BY {sort} {direction}").fetchall()
    return {"rows": rows}
