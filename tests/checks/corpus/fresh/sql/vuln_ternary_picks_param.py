from flask import Flask, request

from helpers import db_sqlite

app = Flask(__name__)


@app.route("/sql-01201", methods=["POST"])
def sql_01201():
    param = request.form.get("sql01201", "")
    num = 106
    bar = param if (7 * 18) + num > 200 else "This_should_never_happen"
    sql = f"SELECT * FROM USERS WHERE USERNAME='foo' AND PASSWORD='{bar}'"
    conn = db_sqlite.get_connection()
    cur = conn.cursor()
    cur.execute(sql)
    return str(cur.fetchall())
