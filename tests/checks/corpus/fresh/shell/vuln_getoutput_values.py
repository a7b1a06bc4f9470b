import subprocess

from flask import Flask
from flask import request as req

app = Flask(__name__)


@app.route("/whois")
def whois():
    domain = req.values.get("domain", "example.org")
    return subprocess.getoutput("whois " + domain)
