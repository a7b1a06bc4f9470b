import sqlite3

from flask import Flask, request

app = Flask(__name__)


@app.route("/sql-01203")
def sql_01203():
    values = request.headers.getlist("X-Filter")
    param = values[0] if values else ""
    conn = sqlite3.connect("bench.db")
    conn.executescript("DELETE FROM sessions WHERE agent = '%s';" % param)
    return "done"
