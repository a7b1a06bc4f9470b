import jsonpickle
from django.http import JsonResponse
from django.views.decorators.http import require_POST


@require_POST
def restore_wizard(request):
    state = request.POST.get("state", "{}")
    wizard = jsonpickle.decode(state)
    return JsonResponse({"step": getattr(wizard, "step", 0)})
