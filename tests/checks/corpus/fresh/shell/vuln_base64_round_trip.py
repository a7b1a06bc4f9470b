import base64
import subprocess

from flask import Flask, request

app = Flask(__name__)


@app.route("/archive", methods=["POST"])
def archive():
    param = request.json.get("name", "") if request.is_json else ""
    encoded = base64.b64encode(param.encode("utf-8"))
    bar = base64.b64decode(encoded).decode("utf-8")
    subprocess.call("tar czf /tmp/backup.tgz " + bar, shell=True)
    return {"status": "queued"}
