import os

from django.conf import settings
from django.http import FileResponse


def document(request):
    name = request.GET["doc"]
    return FileResponse(open(os.path.join(settings.MEDIA_ROOT, name), "rb"))
