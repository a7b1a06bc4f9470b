import hashlib

from flask import Flask, request

from app.db import users

app = Flask(__name__)


@app.post("/login")
def login():
    pwd = request.form["password"]
    digest = hashlib.md5(pwd.encode()).hexdigest()
    return {"ok": users.check(request.form["user"], digest)}
