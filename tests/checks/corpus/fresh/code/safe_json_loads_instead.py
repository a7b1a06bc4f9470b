import json

from django.http import JsonResponse


def settings_preview(request):
    raw = request.body.decode("utf-8")
    try:
        settings = json.loads(raw)
    except json.JSONDecodeError:
        return JsonResponse({"error": "invalid JSON"}, status=400)
    return JsonResponse({"keys": sorted(settings)})
