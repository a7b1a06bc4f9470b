import asyncio
import os

from aiohttp import web


async def compress(request):
    folder = request.query["folder"]
    loop = asyncio.get_running_loop()
    status = await loop.run_in_executor(None, os.system, f"tar czf /tmp/out.tgz {folder}")
    return web.json_response({"status": status})
