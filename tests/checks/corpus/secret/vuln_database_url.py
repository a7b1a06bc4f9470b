DATABASE_URL = "postgresql://app:Xk29vLq8Rt@db.internal:5432/app"
