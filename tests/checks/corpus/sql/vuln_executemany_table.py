import psycopg2
from django.http import HttpResponse


def import_rows(request, table):
    rows = [(line,) for line in request.body.decode().splitlines()]
    conn = psycopg2.connect("dbname=imports")
    cur = conn.cursor()
    cur.executemany(f"INSERT INTO {table} (value) VALUES (%s)", rows)
    conn.commit()
    return HttpResponse("imported")
