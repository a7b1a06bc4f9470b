from flask import Flask, request
from sqlalchemy import create_engine, select, text

from .schema import users

app = Flask(__name__)
engine = create_engine("sqlite:///app.db")


@app.route("/users/by-name")
def by_name():
    name = request.args.get("name", "")
    with engine.connect() as conn:
        rows = conn.execute(select(users.c.id).where(users.c.name == name)).fetchall()
        count = conn.execute(text("SELECT COUNT(*) FROM users WHERE name = :n"), {"n": name})
        return {"ids": [r.id for r in rows], "count": count.scalar()}
