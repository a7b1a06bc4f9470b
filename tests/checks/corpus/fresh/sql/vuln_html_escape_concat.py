import html
import sqlite3

from flask import Flask, request

app = Flask(__name__)


@app.route("/comments", methods=["POST"])
def add_comment():
    post_id = html.escape(request.form["post_id"])
    body = html.escape(request.form["body"])
    conn = sqlite3.connect("blog.db")
    conn.execute("INSERT INTO comments (post_id, body) VALUES (" + post_id + ", '" + body + "')")
    conn.commit()
    return "saved"
