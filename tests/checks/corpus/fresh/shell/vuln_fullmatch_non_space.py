import re
import subprocess

from flask import Flask, request

app = Flask(__name__)


@app.route("/whois")
def whois():
    domain = request.args.get("domain", "")
    if not re.fullmatch(r"\S{1,253}", domain):
        return "invalid domain", 400
    return subprocess.check_output("whois " + domain, shell=True, text=True)
