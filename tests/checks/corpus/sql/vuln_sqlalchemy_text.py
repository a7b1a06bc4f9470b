from flask import Flask, request
from sqlalchemy import text

from app.db import session

app = Flask(__name__)


@app.post("/email")
def change_email():
    body = request.get_json()
    stmt = text(f"UPDATE accounts SET email = '{body['email']}' WHERE id = {body['id']}")
    session.execute(stmt)
    session.commit()
    return "ok"
