import base64
import hashlib

from flask import Flask, request

app = Flask(__name__)


@app.route("/hash-01002", methods=["POST"])
def hash_01002():
    param = request.form.get("hash01002", "")
    salt = b"per-install-salt"
    key = hashlib.pbkdf2_hmac("sha512", param.encode("utf-8"), salt, 310000)
    with open("/srv/passwordFile.txt", "a") as fh:
        fh.write("hash_value=" + base64.b64encode(key).decode() + "\n")
    return "stored"
