from flask import Flask, request
from jinja2 import Environment

app = Flask(__name__)
env = Environment()


@app.route("/greet")
def greet():
    template = env.from_string("Hello " + request.args.get("name", ""))
    return template.render()
