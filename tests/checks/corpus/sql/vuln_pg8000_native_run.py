import pg8000.native
from flask import Flask, request

app = Flask(__name__)


@app.route("/stock")
def stock():
    sku = request.args.get("sku", "")
    con = pg8000.native.Connection("app", host="db", database="warehouse")
    rows = con.run("SELECT qty FROM stock WHERE sku = '" + sku + "'")
    con.close()
    return {"rows": rows}
