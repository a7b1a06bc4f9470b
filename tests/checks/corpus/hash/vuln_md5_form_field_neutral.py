import hashlib

from flask import Flask, request

app = Flask(__name__)


@app.post("/login")
def login():
    supplied = request.form["password"]
    check = hashlib.md5(supplied.encode()).hexdigest()
    return {"ok": check == app.config["ADMIN_HASH"]}
