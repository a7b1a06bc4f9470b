import os
import shutil

from django.http import HttpResponse


def duplicate(request):
    src = os.path.join("/srv/media", request.POST["src"])
    shutil.copyfile(src, "/srv/media/copies/latest")
    return HttpResponse("copied")
