import subprocess

from fastapi import FastAPI

app = FastAPI()


@app.get("/disk/{mount}")
def disk_usage(mount: str):
    argv = ["/bin/sh", "-c", "du -sh " + mount]
    done = subprocess.run(argv, capture_output=True, text=True)
    return {"usage": done.stdout}
