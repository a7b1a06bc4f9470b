import html

from flask import Flask, request

app = Flask(__name__)


@app.route("/notes", methods=["POST"])
def save_note():
    title = html.escape(request.form["title"])
    body = request.form.get("body", "")
    with open("/srv/notes/" + title + ".txt", "w") as fh:
        fh.write(body)
    return "saved"
