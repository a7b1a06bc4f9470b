from concurrent import interpreters

from fastapi import FastAPI

api = FastAPI()


@api.post("/sandbox")
def sandbox(snippet: str):
    interp = interpreters.create()
    try:
        interp.exec(snippet)
    finally:
        interp.close()
    return {"ran": True}
