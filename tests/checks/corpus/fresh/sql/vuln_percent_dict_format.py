import sqlite3

from flask import Flask, request

app = Flask(__name__)


@app.route("/sql-00601")
def sql_00601():
    param = request.args.get("sql00601", "")
    sql = "SELECT * FROM users WHERE name = '%(name)s' AND active = 1" % {"name": param}
    conn = sqlite3.connect("bench.db")
    return str(conn.execute(sql).fetchall())
