import pandas as pd
from flask import Flask, request

from app.db import engine

app = Flask(__name__)


@app.route("/sales")
def sales():
    region = request.args["region"]
    frame = pd.read_sql(f"SELECT * FROM sales WHERE region = '{region}'", engine)
    return frame.to_json()
