import sqlite3

from flask import Flask, request

app = Flask(__name__)


@app.route("/sql-00602", methods=["POST"])
def sql_00602():
    param = request.form.get("sql00602", "")
    encoded = param.encode("utf-8").hex()
    bar = bytes.fromhex(encoded).decode("utf-8")
    conn = sqlite3.connect("bench.db")
    cur = conn.cursor()
    cur.execute("UPDATE users SET note = '" + bar + "' WHERE id = 1")
    conn.commit()
    return "updated"
