import sqlite3

from flask import Flask, request

app = Flask(__name__)


def build_filter(field, value):
    return f"{field} = '{value}'"


def find(where):
    cur = sqlite3.connect("app.db").cursor()
    return cur.execute("SELECT * FROM items WHERE " + where).fetchall()


@app.get("/items")
def items():
    return {"items": find(build_filter("colour", request.args["colour"]))}
