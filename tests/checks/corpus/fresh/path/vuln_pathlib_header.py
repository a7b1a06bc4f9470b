from pathlib import Path

from flask import Flask, request

app = Flask(__name__)

REPORTS = Path("/var/reports")


@app.route("/report")
def report():
    name = request.headers.get("X-Report-Name", "summary.txt")
    report_path = REPORTS / name
    return report_path.read_text(encoding="utf-8")
