import paramiko
from flask import Flask, request

app = Flask(__name__)


@app.get("/remote/log")
def remote_log():
    client = paramiko.SSHClient()
    client.load_system_host_keys()
    client.connect("logs.internal", username="reader")
    _, stdout, _ = client.exec_command("tail -n 50 /var/log/" + request.args["name"])
    return stdout.read()
