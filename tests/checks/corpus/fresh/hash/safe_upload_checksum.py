import hashlib

from flask import Flask, request

app = Flask(__name__)


@app.route("/artifacts", methods=["POST"])
def artifacts():
    blob = request.files["artifact"].read()
    checksum = hashlib.sha256(blob).hexdigest()
    etag = hashlib.md5(blob).hexdigest()
    return {"sha256": checksum, "etag": etag}
