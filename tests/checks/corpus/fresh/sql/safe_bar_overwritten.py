import sqlite3

from flask import Flask, request

app = Flask(__name__)


@app.route("/sql-00603")
def sql_00603():
    param = request.args.get("sql00603", "")
    bar = param
    bar = "This_should_always_happen"
    conn = sqlite3.connect("bench.db")
    rows = conn.execute("SELECT * FROM users WHERE name = '" + bar + "'").fetchall()
    return str(rows)
