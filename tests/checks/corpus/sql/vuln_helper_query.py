import sqlite3

from flask import Flask, request

app = Flask(__name__)


def find(conn, name):
    return conn.execute("SELECT id FROM products WHERE name = '" + name + "'").fetchall()


@app.route("/product")
def product():
    conn = sqlite3.connect("shop.db")
    return {"ids": find(conn, request.args["name"])}
