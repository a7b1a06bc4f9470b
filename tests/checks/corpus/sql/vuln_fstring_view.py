import sqlite3

from flask import Flask, jsonify, request

app = Flask(__name__)


@app.route("/users")
def find_users():
    name = request.args["name"]
    cur = sqlite3.connect("app.db").cursor()
    cur.execute(f"SELECT id, email FROM users WHERE name = '{name}'")
    return jsonify(cur.fetchall())
