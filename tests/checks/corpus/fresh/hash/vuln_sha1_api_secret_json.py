import hashlib

from fastapi import FastAPI
from pydantic import BaseModel

app = FastAPI()


class Credentials(BaseModel):
    login: str
    passwd: str


@app.post("/register")
def register(creds: Credentials):
    hashed = hashlib.sha1(creds.passwd.encode()).hexdigest()
    return {"login": creds.login, "stored": hashed}
