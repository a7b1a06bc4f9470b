from flask import Flask, abort, request, send_file

app = Flask(__name__)

EXPORTS = {
    "daily": "/srv/exports/daily.csv",
    "weekly": "/srv/exports/weekly.csv",
}


@app.route("/export")
def export():
    kind = request.args.get("kind", "daily")
    path = EXPORTS.get(kind)
    if path is None:
        abort(404)
    return send_file(path, as_attachment=True)
