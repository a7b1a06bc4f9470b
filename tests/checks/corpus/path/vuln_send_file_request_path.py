from flask import Flask, request, send_file

app = Flask(__name__)


@app.route("/static/<path:_>")
def static_files(_):
    return send_file("public" + request.path)
