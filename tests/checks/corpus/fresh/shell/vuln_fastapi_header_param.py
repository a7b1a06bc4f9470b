import subprocess

from fastapi import FastAPI, Header

app = FastAPI()


@app.get("/geo")
def geo(x_forwarded_for: str = Header(default="127.0.0.1")):
    client = x_forwarded_for.split(",")[0].strip()
    out = subprocess.check_output(f"geoiplookup {client}", shell=True, text=True)
    return {"geo": out}
