from pathlib import Path

from flask import Flask, request

app = Flask(__name__)
NOTES = Path("/srv/notes")


@app.get("/notes")
def read_note():
    note = NOTES / request.args["name"]
    return note.read_text()
