import io

import numpy as np
from flask import Flask, request

app = Flask(__name__)


@app.route("/arrays", methods=["POST"])
def arrays():
    buffer = io.BytesIO(request.files["array"].read())
    data = np.load(buffer, allow_pickle=True)
    return {"shape": list(data.shape)}
