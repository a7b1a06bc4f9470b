from flask import Flask, request
from sqlalchemy import create_engine

app = Flask(__name__)
engine = create_engine("postgresql+psycopg2://app@db/shop")


@app.post("/orders/archive")
def archive_orders():
    before = request.form["before"]
    with engine.begin() as conn:
        conn.exec_driver_sql(f"DELETE FROM orders WHERE created < '{before}'")
    return "ok"
