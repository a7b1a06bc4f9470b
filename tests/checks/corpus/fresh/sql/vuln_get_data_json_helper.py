import json
import sqlite3

from flask import Flask, request

app = Flask(__name__)


def where_clause(filters):
    parts = []
    for key, value in filters.items():
        parts.append("%s = '%s'" % (key, value))
    return " AND ".join(parts) or "1 = 1"


@app.route("/search", methods=["POST"])
def search():
    filters = json.loads(request.get_data())
    conn = sqlite3.connect("inventory.db")
    query = "SELECT * FROM items WHERE " + where_clause(filters)
    return {"items": conn.execute(query).fetchall()}
