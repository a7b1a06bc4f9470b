import os

from fastapi import FastAPI, Request

app = FastAPI()


@app.post("/dns")
async def dns(request: Request):
    body = await request.json()
    host = body.get("host", "")
    answer = os.popen("dig +short " + host).read()
    return {"answer": answer}
