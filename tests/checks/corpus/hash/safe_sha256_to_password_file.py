import base64
import hashlib

from flask import Flask, request

app = Flask(__name__)


@app.post("/store")
def store():
    value = request.form.get("value", "")
    digest = hashlib.sha256()
    digest.update(value.encode("utf-8"))
    result = digest.digest()
    with open("data/passwordFile.txt", "a") as fh:
        fh.write(f"hash_value={base64.b64encode(result).decode()}\n")
    return "stored"
