import pickle

from flask import Flask, request

app = Flask(__name__)


@app.route("/jobs", methods=["POST"])
def submit_job():
    job = pickle.loads(request.stream.read())
    return {"queued": job["name"]}
