import base64
import hashlib

from flask import Flask, request

app = Flask(__name__)


@app.route("/hash-01602", methods=["POST"])
def hash_01602():
    param = request.form.get("hash01602", "")
    digest = hashlib.new("sha1")
    digest.update(param.encode("utf-8"))
    encoded = base64.b64encode(digest.digest()).decode("ascii")
    with open("passwordFile.txt", "a") as fh:
        fh.write("hash_value=" + encoded + "\n")
    return "Sensitive value '" + param + "' hashed and stored"
