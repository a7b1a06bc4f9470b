import shlex
import subprocess
import urllib.parse

from flask import Flask, request

app = Flask(__name__)


@app.route("/grep")
def grep_logs():
    raw = request.query_string.decode("utf-8")
    term = ""
    for pair in raw.split("&"):
        key, _, value = pair.partition("=")
        if key == "term":
            term = urllib.parse.unquote(value)
    cmd = "grep -rn -- " + shlex.quote(term) + " /srv/logs"
    out = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    return out.stdout
