import aiopg
from aiohttp import web

DSN = "dbname=crm user=app host=db"


async def customer(request):
    cid = request.match_info["cid"]
    async with aiopg.create_pool(DSN) as pool:
        async with pool.acquire() as conn:
            async with conn.cursor() as cur:
                await cur.execute("SELECT * FROM customers WHERE id = {}".format(cid))
                row = await cur.fetchone()
    return web.json_response({"customer": row})
