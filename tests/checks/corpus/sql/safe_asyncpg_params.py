import asyncpg
from fastapi import FastAPI

api = FastAPI()


@api.get("/tags")
async def list_tags(prefix: str):
    conn = await asyncpg.connect("postgresql://app@db/blog")
    try:
        rows = await conn.fetch("SELECT name FROM tags WHERE name LIKE $1", prefix + "%")
        total = await conn.fetchval("SELECT count(*) FROM tags")
    finally:
        await conn.close()
    return {"names": [r["name"] for r in rows], "total": total}
