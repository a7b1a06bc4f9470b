import os
import urllib.parse

from flask import Flask, request

app = Flask(__name__)


@app.route("/shell-01101")
def shell_01101():
    query_string = request.query_string.decode("utf-8")
    param_loc = query_string.find("shell01101=")
    if param_loc == -1:
        return "parameter shell01101 missing", 400
    start = param_loc + len("shell01101=")
    amp = query_string.find("&", start)
    param = query_string[start:] if amp == -1 else query_string[start:amp]
    param = urllib.parse.unquote_plus(param)
    os.system("echo " + param)
    return "ok"
