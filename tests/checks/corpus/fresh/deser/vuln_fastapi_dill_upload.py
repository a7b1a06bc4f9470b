import dill
from fastapi import FastAPI, File, UploadFile

app = FastAPI()


@app.post("/functions")
async def register_function(file: UploadFile = File(...)):
    content = await file.read()
    func = dill.loads(content)
    return {"name": func.__name__}
