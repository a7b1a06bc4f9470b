from flask import Flask, request
from sqlalchemy import create_engine, text
from sqlalchemy.orm import Session

app = Flask(__name__)
engine = create_engine("postgresql+psycopg2://shop@localhost/shop")


@app.route("/cart/clear", methods=["POST"])
def clear_cart():
    token = request.cookies.get("cart_token", "")
    with Session(engine) as session:
        session.execute(text("DELETE FROM cart_items WHERE cart_token = '%s'" % token))
        session.commit()
    return "", 204
