from django.db.models.expressions import RawSQL
from django.http import JsonResponse

from games.models import Player


def ranked(request):
    user = request.GET["user"]
    players = Player.objects.annotate(
        rank=RawSQL("SELECT rank FROM scores WHERE user = '" + user + "'", ())
    )
    return JsonResponse({"players": [p.name for p in players]})
