import subprocess

from flask import Flask, request

app = Flask(__name__)


@app.route("/lookup-safe")
def lookup_safe():
    param = request.headers.get("X-Lookup-Host", "")
    options = {}
    options["keyA"] = "a-Value"
    options["keyB"] = param
    options["keyC"] = "another-Value"
    bar = options.get("keyA")
    result = subprocess.run(f"echo {bar}", shell=True, capture_output=True, text=True)
    return result.stdout
