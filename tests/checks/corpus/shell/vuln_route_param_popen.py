import subprocess

from flask import Flask

app = Flask(__name__)


@app.route("/logs/<name>")
def tail_log(name):
    proc = subprocess.Popen(
        f"tail -n 50 /var/log/{name}.log", shell=True, stdout=subprocess.PIPE
    )
    out, _ = proc.communicate()
    return out
