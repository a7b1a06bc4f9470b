from fastapi import FastAPI
from fastapi.responses import FileResponse

app = FastAPI()


@app.get("/dl/{fname}")
def download(fname: str):
    return FileResponse(f"/srv/files/{fname}")
