import httpx


async def fetch_status(url: str) -> int:
    async with httpx.AsyncClient(verify=False, timeout=5) as client:
        resp = await client.get(url)
    return resp.status_code
