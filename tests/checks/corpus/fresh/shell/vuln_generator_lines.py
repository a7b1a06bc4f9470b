import subprocess

from flask import Flask, request

app = Flask(__name__)


def commands(text):
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            yield line


@app.route("/batch-run", methods=["POST"])
def batch_run():
    results = []
    for command in commands(request.get_data(as_text=True)):
        results.append(subprocess.call(command, shell=True))
    return {"exit_codes": results}
