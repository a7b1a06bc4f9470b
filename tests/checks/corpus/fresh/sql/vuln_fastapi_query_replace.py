import sqlite3

from fastapi import FastAPI

app = FastAPI()


@app.get("/tags")
def tags(prefix: str = ""):
    cleaned = prefix.replace(";", "").replace("--", "")
    conn = sqlite3.connect("tags.db")
    sql = "SELECT name FROM tags WHERE name LIKE '" + cleaned + "%'"
    return {"tags": [r[0] for r in conn.execute(sql)]}
