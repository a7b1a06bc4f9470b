import os

from fastapi import FastAPI, Query

api = FastAPI()
CACHE = "/var/cache/thumbs"


@api.delete("/thumbs")
def drop_thumb(key: str = Query(...)):
    os.remove(os.path.join(CACHE, key))
    return {"deleted": key}
