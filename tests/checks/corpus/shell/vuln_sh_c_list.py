import subprocess

from flask import Flask, request

app = Flask(__name__)


@app.post("/thumbnail")
def thumbnail():
    source = request.form["file"]
    subprocess.run(["sh", "-c", "convert " + source + " -resize 64x64 thumb.png"], check=True)
    return "ok"
