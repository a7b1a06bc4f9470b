from flask import Flask, request, send_from_directory

app = Flask(__name__)


@app.route("/attachments")
def attachments():
    name = request.args.get("name", "")
    return send_from_directory("/srv/attachments", name, as_attachment=True)
