from django.http import JsonResponse

from .models import Ticket


def tickets(request):
    owner = request.GET.get("owner", "")
    qs = Ticket.objects.extra(where=["owner_name = '%s'" % owner])
    return JsonResponse({"ids": list(qs.values_list("id", flat=True))})
