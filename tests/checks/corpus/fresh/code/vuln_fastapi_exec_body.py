from fastapi import Body, FastAPI

app = FastAPI()


@app.post("/sandbox")
def sandbox(snippet: str = Body(..., embed=True)):
    lines = snippet.splitlines()
    program = "\n".join(line for line in lines if not line.startswith("#"))
    env = {}
    exec(program, env)
    return {"vars": sorted(env)}
