from django.db import connection
from django.http import JsonResponse


def book_search(request):
    title = request.GET.get("title", "")
    with connection.cursor() as cur:
        cur.execute("SELECT id, title FROM library_book WHERE title LIKE '%%%s%%'" % title)
        rows = cur.fetchall()
    return JsonResponse({"books": rows})
