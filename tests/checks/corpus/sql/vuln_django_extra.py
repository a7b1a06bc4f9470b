from django.http import JsonResponse

from books.models import Book


def by_author(request):
    author = request.GET["author"]
    qs = Book.objects.extra(where=["author = '%s'" % author])
    return JsonResponse({"titles": [b.title for b in qs]})
