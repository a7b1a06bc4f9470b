from fastapi import FastAPI, Request

app = FastAPI()


@app.put("/notes/{note_name}")
async def put_note(note_name: str, request: Request):
    body = await request.body()
    with open(f"/srv/notes/{note_name}.md", "wb") as fh:
        fh.write(body)
    return {"saved": note_name}
