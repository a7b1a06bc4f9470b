from urllib.parse import parse_qs

from flask import Flask, request

app = Flask(__name__)


@app.route("/raw")
def raw():
    query = parse_qs(request.query_string.decode())
    name = query["file"][0]
    with open(f"/srv/data/{name}") as fh:
        return fh.read()
