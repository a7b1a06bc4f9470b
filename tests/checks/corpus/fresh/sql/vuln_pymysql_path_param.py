import pymysql
from flask import Flask

app = Flask(__name__)


@app.route("/invoice/<invoice_id>")
def invoice(invoice_id):
    conn = pymysql.connect(host="db", user="app", database="billing")
    try:
        with conn.cursor() as cursor:
            cursor.execute("SELECT * FROM invoices WHERE id = " + invoice_id)
            return {"invoice": cursor.fetchone()}
    finally:
        conn.close()
