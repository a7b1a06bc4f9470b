import sqlite3

from flask import Flask, request

app = Flask(__name__)


@app.post("/admin/notes")
def add_note():
    body = request.json["body"]
    db = sqlite3.connect("notes.db")
    db.executescript(f"INSERT INTO notes(body) VALUES ('{body}');")
    db.commit()
    return "", 204
