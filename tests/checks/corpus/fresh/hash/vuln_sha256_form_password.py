import hashlib

from flask import Flask, request

from .models import User, db

app = Flask(__name__)


@app.route("/password", methods=["POST"])
def change_password():
    user = User.query.get(request.form["user_id"])
    new_value = request.form["new_password"]
    user.password_hash = hashlib.sha256(new_value.encode()).hexdigest()
    db.session.commit()
    return "changed"
