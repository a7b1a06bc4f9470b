import subprocess

from flask import Flask, request

app = Flask(__name__)


class Pipeline:
    def run(self, text):
        return text.upper()


@app.post("/transform")
def transform():
    pipe = Pipeline()
    out = pipe.run("SELECT " + request.form["text"])
    subprocess.run(["logger", "transform done"], check=True)
    return out


if __name__ == "__main__":
    app.run(host="127.0.0.1", port=8000)
