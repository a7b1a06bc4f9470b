import hashlib
import subprocess

from flask import Flask, request

app = Flask(__name__)


@app.route("/cache/purge", methods=["POST"])
def purge():
    url = request.form["url"]
    key = hashlib.sha256(url.encode("utf-8")).digest().hex()
    subprocess.run("rm -f /var/cache/pages/" + key, shell=True, check=False)
    return "", 204
