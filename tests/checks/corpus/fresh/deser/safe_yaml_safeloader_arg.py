import yaml
from fastapi import FastAPI, Request

app = FastAPI()


@app.post("/manifest")
async def manifest(request: Request):
    body = await request.body()
    data = yaml.load(body, Loader=yaml.SafeLoader)
    return {"services": len(data.get("services", {}))}
