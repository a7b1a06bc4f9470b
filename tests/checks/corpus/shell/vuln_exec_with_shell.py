import asyncio

from aiohttp import web


async def ping(request):
    host = request.query["host"]
    proc = await asyncio.create_subprocess_exec(
        "/bin/sh", "-c", f"ping -c 1 {host}", stdout=asyncio.subprocess.PIPE
    )
    out, _ = await proc.communicate()
    return web.Response(text=out.decode())
