import aiosqlite
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route


async def lookup(request):
    code = request.query_params.get("code", "")
    async with aiosqlite.connect("codes.db") as db:
        cursor = await db.execute(f"SELECT label FROM codes WHERE code = '{code}'")
        row = await cursor.fetchone()
    return JSONResponse({"label": row[0] if row else None})


app = Starlette(routes=[Route("/lookup", lookup)])
