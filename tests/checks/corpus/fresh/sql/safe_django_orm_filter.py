from django.db import connection
from django.http import JsonResponse

from .models import Article


def articles(request):
    tag = request.GET.get("tag", "")
    found = Article.objects.filter(tags__name=tag).values_list("id", flat=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM blog_article WHERE tag = %s", [tag])
        (total,) = cursor.fetchone()
    return JsonResponse({"ids": list(found), "total": total})
