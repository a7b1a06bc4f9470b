import psycopg2


def connect(host, user="admin", password=None, token_type="bearer"):
    return psycopg2.connect(host=host, user=user, password=password)
