from flask import Flask, request

app = Flask(__name__)


def read_doc(name):
    with open(f"docs/{name}", encoding="utf-8") as fh:
        return fh.read()


@app.route("/docs")
def docs():
    return read_doc(request.args.get("page", "index.md"))
