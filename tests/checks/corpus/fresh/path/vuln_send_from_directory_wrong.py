import os

from flask import Flask, request, send_file

app = Flask(__name__)


@app.route("/path-00901")
def path_00901():
    param = request.args.get("path00901", "")
    bar = param.split(" ")[0]
    file_name = os.path.join("/srv/testfiles", bar)
    if not os.path.exists(file_name):
        return "missing", 404
    return send_file(file_name)
