import asyncio

from flask import Flask, request

app = Flask(__name__)


class Job:
    def __init__(self, name):
        self.name = name

    def run(self, arg):
        return f"{self.name}:{arg}"


@app.post("/jobs")
def start_job():
    job = Job("resize")
    result = job.run(request.form["size"])
    loop = asyncio.new_event_loop()
    loop.run_until_complete(asyncio.sleep(0))
    return result
