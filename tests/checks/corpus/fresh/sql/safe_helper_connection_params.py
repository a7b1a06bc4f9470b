from flask import Flask, request

from helpers import db_sqlite

app = Flask(__name__)


@app.route("/sql-01202", methods=["POST"])
def sql_01202():
    param = request.form.get("sql01202", "")
    sql = "SELECT * FROM USERS WHERE USERNAME = ? AND PASSWORD = ?"
    conn = db_sqlite.get_connection()
    cur = conn.cursor()
    cur.execute(sql, ("foo", param))
    return str(cur.fetchall())
