import os

from django.conf import settings
from django.http import JsonResponse


def delete_attachment(request, attachment):
    path = os.path.join(settings.MEDIA_ROOT, "attachments", attachment)
    if os.path.exists(path):
        os.remove(path)
    return JsonResponse({"deleted": attachment})
