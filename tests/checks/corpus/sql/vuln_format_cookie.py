from flask import Flask, request

from app.db import connection

app = Flask(__name__)


@app.route("/logout")
def logout():
    token = request.cookies.get("session")
    query = "DELETE FROM sessions WHERE token = '{}'".format(token)
    with connection() as conn:
        conn.cursor().execute(query)
    return "bye"
