from flask import Flask, request
from flask_sqlalchemy import SQLAlchemy
from sqlalchemy import text

app = Flask(__name__)
db = SQLAlchemy(app)


@app.route("/touch", methods=["POST"])
def touch():
    agent = request.headers.get("User-Agent", "unknown")
    sql = "UPDATE sessions SET agent = '{}' WHERE id = 1".format(agent)
    db.session.execute(text(sql))
    db.session.commit()
    return "", 204
