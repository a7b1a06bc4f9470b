from flask import Flask, request
from sqlalchemy import text

from app.db import session

app = Flask(__name__)


@app.post("/email")
def change_email():
    body = request.get_json()
    stmt = text("UPDATE accounts SET email = :email WHERE id = :id")
    session.execute(stmt, {"email": body["email"], "id": body["id"]})
    session.commit()
    return "ok"
