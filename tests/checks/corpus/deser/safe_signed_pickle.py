import hashlib
import hmac
import pickle

from app.settings import SIGNING_KEY


def load_job(blob):
    signature, payload = blob[:32], blob[32:]
    expected = hmac.new(SIGNING_KEY, payload, hashlib.sha256).digest()
    if not hmac.compare_digest(signature, expected):
        raise ValueError("job payload was tampered with")
    return pickle.loads(payload)
