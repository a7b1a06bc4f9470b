import sqlite3

from flask import Flask, request

app = Flask(__name__)


@app.route("/page")
def page():
    number = int(request.args.get("page", 1))
    size = min(int(request.args.get("size", 20)), 100)
    offset = (number - 1) * size
    conn = sqlite3.connect("catalog.db")
    rows = conn.execute(f"SELECT sku, name FROM products LIMIT {size} OFFSET {offset}").fetchall()
    return {"rows": rows}
