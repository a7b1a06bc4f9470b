import math
import os

from flask import Flask, request

app = Flask(__name__)


@app.get("/calc")
def calc():
    fn = getattr(math, "sqrt")
    cwd = getattr(os, "getcwd")()
    return {"root": fn(float(request.args["x"])), "cwd": cwd}
