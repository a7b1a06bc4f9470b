from fastapi import FastAPI

from app.db import conn

app = FastAPI()


@app.get("/items")
def items(q: str):
    rows = conn.execute(f"SELECT * FROM items WHERE name LIKE '%{q}%'").fetchall()
    return {"items": rows}
