from django.shortcuts import render

from books.models import Book


def search(request):
    q = request.GET.get("q", "")
    books = Book.objects.raw("SELECT * FROM books_book WHERE title = %s", [q])
    return render(request, "books/search.html", {"books": books})
