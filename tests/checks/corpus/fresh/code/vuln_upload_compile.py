from flask import Flask, request

app = Flask(__name__)


@app.route("/scripts/run", methods=["POST"])
def run_script():
    upload = request.files["script"]
    source = upload.read().decode("utf-8")
    code = compile(source, upload.filename or "<upload>", "exec")
    namespace = {"__name__": "__upload__"}
    exec(code, namespace)
    return {"ok": True}
