import jinja2
from flask import Flask, request

app = Flask(__name__)


@app.route("/preview")
def preview():
    source = request.args.get("template", "")
    return jinja2.Template(source).render(user="guest")
