from flask import Flask, request

from app.db import get_db

app = Flask(__name__)


@app.route("/orders")
def order():
    sql = "SELECT * FROM orders WHERE id = %s" % request.args.get("id")
    rows = get_db().execute(sql)
    return {"rows": [dict(r) for r in rows]}
