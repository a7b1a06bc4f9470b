import asyncio

from aiohttp import web


async def compress(request):
    data = await request.post()
    level = data.get("level", "6")
    proc = await asyncio.create_subprocess_exec(
        "bash", "-c", f"gzip -{level} /srv/exports/latest.csv"
    )
    await proc.wait()
    return web.json_response({"rc": proc.returncode})


app = web.Application()
app.router.add_post("/compress", compress)
