import sqlite3

from flask import Flask, request

app = Flask(__name__)


@app.route("/sql-00212")
def sql_00212():
    param = request.args.get("sql00212", "")
    bar = param if (3 * 4) < 10 else "This should always happen"
    conn = sqlite3.connect("bench.db")
    cur = conn.cursor()
    cur.execute("SELECT * FROM users WHERE name = '" + bar + "'")
    return str(cur.fetchall())
