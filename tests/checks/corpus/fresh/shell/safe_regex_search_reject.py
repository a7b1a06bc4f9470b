import re
import subprocess

from flask import Flask, abort, request

app = Flask(__name__)


@app.route("/branches")
def branches():
    name = request.args.get("branch", "main")
    if re.search(r"[^A-Za-z0-9_-]", name):
        abort(400)
    out = subprocess.check_output(f"git log --oneline -n 5 {name}", shell=True, text=True)
    return {"log": out.splitlines()}
