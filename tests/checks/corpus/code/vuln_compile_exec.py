from flask import Flask, request

app = Flask(__name__)


@app.post("/plugin")
def plugin():
    source = request.form["source"]
    code = compile(source, "<plugin>", "exec")
    exec(code)
    return "loaded"
