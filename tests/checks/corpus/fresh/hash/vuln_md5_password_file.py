import base64
import hashlib

from flask import Flask, request

app = Flask(__name__)


@app.route("/hash-01001", methods=["POST"])
def hash_01001():
    param = request.form.get("hash01001", "")
    digest = hashlib.md5()
    digest.update(param.encode("utf-8"))
    result = digest.digest()
    with open("/srv/passwordFile.txt", "a") as fh:
        fh.write("hash_value=" + base64.b64encode(result).decode() + "\n")
    return "stored"
