import sqlite3

from flask import Flask, request

app = Flask(__name__)


@app.route("/tags", methods=["POST"])
def add_tags():
    names = request.form.getlist("tag")
    conn = sqlite3.connect("tags.db")
    conn.executemany("INSERT OR IGNORE INTO tags (name) VALUES (?)", [(n,) for n in names])
    placeholders = ", ".join("?" for _ in names)
    rows = conn.execute(f"SELECT id FROM tags WHERE name IN ({placeholders})", names).fetchall()
    conn.commit()
    return {"ids": [r[0] for r in rows]}
