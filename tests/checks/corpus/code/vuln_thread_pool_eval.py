from concurrent.futures import ThreadPoolExecutor

from flask import Flask, request

app = Flask(__name__)
pool = ThreadPoolExecutor(max_workers=4)


@app.post("/score")
def score():
    future = pool.submit(eval, request.form["formula"], {"__builtins__": {}})
    return {"score": future.result(timeout=2)}
