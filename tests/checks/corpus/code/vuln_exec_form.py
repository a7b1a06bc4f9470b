from flask import Flask, request

app = Flask(__name__)


@app.post("/run")
def run():
    code = request.form.get("code", "")
    scope = {}
    exec(code, scope)
    return str(scope.get("result"))
