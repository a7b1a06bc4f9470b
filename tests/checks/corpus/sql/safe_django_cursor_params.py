from django.db import connection
from django.http import JsonResponse

from .models import Book


def book_search(request):
    title = request.GET.get("title", "")
    with connection.cursor() as cur:
        cur.execute("SELECT id, title FROM library_book WHERE title LIKE %s", [f"%{title}%"])
        rows = cur.fetchall()
    recent = Book.objects.filter(title__icontains=title).extra(
        where=["published > %s"], params=[request.GET.get("since", "2000-01-01")]
    )
    return JsonResponse({"books": rows, "recent": [b.pk for b in recent]})
