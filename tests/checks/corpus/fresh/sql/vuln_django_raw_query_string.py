from urllib.parse import parse_qs

from django.contrib.auth.models import User
from django.http import JsonResponse


def search_users(request):
    params = parse_qs(request.META.get("QUERY_STRING", ""))
    name = params.get("name", [""])[0]
    users = User.objects.raw("SELECT * FROM auth_user WHERE username LIKE '%%%s%%'" % name)
    return JsonResponse({"ids": [u.id for u in users]})
