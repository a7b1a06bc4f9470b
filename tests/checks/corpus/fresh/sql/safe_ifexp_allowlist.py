import sqlite3

from flask import Flask, request

app = Flask(__name__)


@app.route("/people")
def people():
    col = request.args.get("sort", "name")
    col = col if col in ("name", "age", "city") else "name"
    conn = sqlite3.connect("people.db")
    return {"rows": conn.execute(f"SELECT * FROM people ORDER BY {col}").fetchall()}
