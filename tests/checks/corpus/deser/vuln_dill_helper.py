import dill
from flask import Flask, request

app = Flask(__name__)


def restore(blob):
    return dill.loads(blob)


@app.post("/job")
def job():
    task = restore(request.data)
    return {"name": task.__name__}
