import sqlite3

from flask import Flask, request

app = Flask(__name__)


@app.route("/sql-00213", methods=["POST"])
def sql_00213():
    param = request.form.get("sql00213", "")
    values = ["first"]
    values.append(param)
    values.append("last")
    bar = values[1]
    conn = sqlite3.connect("bench.db")
    conn.executescript("INSERT INTO audit (note) VALUES ('" + bar + "');")
    return "ok"
