import aiohttp


async def fetch_all(urls):
    connector = aiohttp.TCPConnector(verify_ssl=False, limit=20)
    async with aiohttp.ClientSession(connector=connector) as session:
        results = []
        for url in urls:
            async with session.get(url) as resp:
                results.append(await resp.text())
        return results
