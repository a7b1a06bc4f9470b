from flask import Flask, request

from app.db import cursor

app = Flask(__name__)


@app.route("/logs")
def logs():
    query = "SELECT ts, message FROM logs WHERE 1 = 1"
    level = request.args.get("level")
    if level:
        query += " AND level = '" + level + "'"
    cursor.execute(query)
    return {"logs": cursor.fetchall()}
