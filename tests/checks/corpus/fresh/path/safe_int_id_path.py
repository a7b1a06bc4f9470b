import os

from flask import Flask, request

app = Flask(__name__)


@app.route("/invoice")
def invoice():
    invoice_id = int(request.args.get("id", "0"))
    path = os.path.join("/srv/invoices", f"{invoice_id:08d}.pdf")
    with open(path, "rb") as fh:
        return fh.read(), 200, {"Content-Type": "application/pdf"}
