import jwt


def issue(user_id):
    return jwt.encode({"sub": user_id}, "my-jwt-secret", algorithm="HS256")
