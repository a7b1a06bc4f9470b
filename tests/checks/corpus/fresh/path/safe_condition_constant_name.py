from flask import Flask, request

app = Flask(__name__)


@app.route("/path-00077")
def path_00077():
    param = request.args.get("path00077", "")
    bar = "report.txt" if 5 * 5 == 25 else param
    file_name = "/srv/testfiles/" + bar
    with open(file_name) as fh:
        return fh.read()
