import marshal

from flask import Flask, request

app = Flask(__name__)


@app.post("/cache/import")
def import_cache():
    entries = marshal.loads(request.get_data())
    return {"count": len(entries)}
