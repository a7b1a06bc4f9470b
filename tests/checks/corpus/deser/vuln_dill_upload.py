import dill
from fastapi import FastAPI, UploadFile

api = FastAPI()


@api.post("/models")
async def upload_model(file: UploadFile):
    model = dill.loads(await file.read())
    return {"type": type(model).__name__}
