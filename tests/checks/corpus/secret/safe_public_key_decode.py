import jwt

PUBLIC_KEY = """-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE
-----END PUBLIC KEY-----"""


def verify(token):
    return jwt.decode(token, PUBLIC_KEY, algorithms=["ES256"])
