import sqlite3

from flask import Flask, request

app = Flask(__name__)


def get_db():
    return sqlite3.connect("/var/lib/app/users.db")


@app.route("/login", methods=["POST"])
def login():
    username = request.form.get("username", "")
    password = request.form.get("password", "")
    conn = get_db()
    cur = conn.cursor()
    cur.execute(f"SELECT id FROM users WHERE name = '{username}' AND pw = '{password}'")
    row = cur.fetchone()
    return {"ok": row is not None}
