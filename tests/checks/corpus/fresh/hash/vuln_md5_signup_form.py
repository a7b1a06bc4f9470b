import hashlib

from flask import Flask, request

from .db import save_user

app = Flask(__name__)


@app.route("/signup", methods=["POST"])
def signup():
    email = request.form["email"]
    digest = hashlib.md5(request.form["password"].encode("utf-8")).hexdigest()
    save_user(email=email, password_hash=digest)
    return {"created": email}
