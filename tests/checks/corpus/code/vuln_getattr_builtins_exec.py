import builtins

from fastapi import FastAPI

api = FastAPI()


@api.post("/hooks/run")
def run_hook(source: str):
    runner = getattr(builtins, "exec")
    runner(source, {})
    return {"ok": True}
