import subprocess

from flask import Flask, abort, request

app = Flask(__name__)

DIAGNOSTICS = {"uptime", "df -h", "free -m"}


@app.route("/diag", methods=["POST"])
def diag():
    tool = request.form.get("tool", "")
    if tool not in DIAGNOSTICS:
        abort(400)
    return subprocess.check_output(tool, shell=True, text=True)
