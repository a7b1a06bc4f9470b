import pg8000.native
from flask import Flask, request
from sqlalchemy import create_engine

app = Flask(__name__)
engine = create_engine("postgresql+psycopg2://app@db/shop")


@app.post("/orders/archive")
def archive_orders():
    before = request.form["before"]
    with engine.begin() as conn:
        conn.exec_driver_sql("DELETE FROM orders WHERE created < %(before)s", {"before": before})
    con = pg8000.native.Connection("app", host="db", database="warehouse")
    con.run("UPDATE stats SET archived = archived + 1 WHERE day = :day", day=before)
    return "ok"
