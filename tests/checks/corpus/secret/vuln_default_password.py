import psycopg2


def connect(host, user="admin", password="admin123"):
    return psycopg2.connect(host=host, user=user, password=password)
