import ssl

import httpx

_context = ssl.create_default_context()
_context.load_verify_locations("/etc/ssl/partner-ca.pem")


async def call_partner(path, payload):
    async with httpx.AsyncClient(verify=_context, timeout=10) as client:
        resp = await client.post("https://partner.example.com" + path, json=payload)
        return resp.json()
