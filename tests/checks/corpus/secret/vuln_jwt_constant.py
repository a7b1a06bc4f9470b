import jwt

SIGNING = "k3y-for-tokens"


def verify(token):
    return jwt.decode(token, SIGNING, algorithms=["HS256"])
