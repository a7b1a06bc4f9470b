import asyncpg
from fastapi import FastAPI

api = FastAPI()


@api.get("/tags")
async def list_tags(prefix: str):
    conn = await asyncpg.connect("postgresql://app@db/blog")
    try:
        rows = await conn.fetch(f"SELECT name FROM tags WHERE name LIKE '{prefix}%'")
    finally:
        await conn.close()
    return [r["name"] for r in rows]
