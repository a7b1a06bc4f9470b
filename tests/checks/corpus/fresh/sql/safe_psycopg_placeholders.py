import psycopg2
from flask import Flask, request

app = Flask(__name__)


@app.route("/orders")
def orders():
    customer = request.args.get("customer", "")
    status = request.args.get("status", "open")
    conn = psycopg2.connect(dbname="shop")
    with conn.cursor() as cur:
        cur.execute(
            "SELECT id, total FROM orders WHERE customer = %s AND status = %s",
            (customer, status),
        )
        rows = cur.fetchall()
    return {"orders": rows}
