from flask import Flask, abort, request, send_file

app = Flask(__name__)
REPORTS = {"daily": "reports/daily.pdf", "weekly": "reports/weekly.pdf"}


@app.route("/report")
def report():
    name = request.args.get("name", "")
    if name not in REPORTS:
        abort(404)
    return send_file(REPORTS[name])
