import shlex

import paramiko
from fabric import Connection
from flask import Flask, request

app = Flask(__name__)


@app.get("/remote/uptime")
def uptime():
    client = paramiko.SSHClient()
    client.load_system_host_keys()
    client.connect("web1.internal", username="reader")
    _, stdout, _ = client.exec_command("uptime")
    c = Connection("deploy@web1.internal")
    c.run("ls " + shlex.quote(request.args["dir"]), hide=True)
    return stdout.read()
