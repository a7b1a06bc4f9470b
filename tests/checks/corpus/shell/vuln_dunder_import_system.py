from flask import Flask, request

app = Flask(__name__)


@app.get("/disk")
def disk():
    target = request.args.get("mount", "/")
    return str(__import__("os").system("df -h " + target))
