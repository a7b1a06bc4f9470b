from flask import Flask, render_template_string

app = Flask(__name__)


@app.route("/hello/<name>")
def hello(name):
    page = "<h1>Hello %s!</h1><p>Welcome back.</p>" % name
    return render_template_string(page)
