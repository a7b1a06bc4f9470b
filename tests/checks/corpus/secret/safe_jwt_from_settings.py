import jwt

from app import settings


def issue(user_id):
    return jwt.encode({"sub": user_id}, settings.JWT_SECRET, algorithm="HS256")
