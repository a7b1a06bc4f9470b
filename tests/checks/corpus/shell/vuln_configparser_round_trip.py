import configparser
import os

from flask import Flask, request

app = Flask(__name__)


@app.route("/cfg")
def cfg():
    param = request.args.get("value", "")
    conf = configparser.ConfigParser()
    conf.add_section("section")
    conf.set("section", "keyA", "a_value")
    conf.set("section", "keyB", param)
    bar = conf.get("section", "keyB")
    os.system("echo " + bar)
    return "ok"
