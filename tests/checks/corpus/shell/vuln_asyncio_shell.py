import asyncio

from aiohttp import web


async def history(request):
    branch = request.match_info["branch"]
    proc = await asyncio.create_subprocess_shell(
        f"git log --oneline {branch}", stdout=asyncio.subprocess.PIPE
    )
    out, _ = await proc.communicate()
    return web.Response(text=out.decode())
