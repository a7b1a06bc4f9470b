import os

from django.http import HttpResponse


def thumbnails(request):
    sizes = request.POST.get("sizes", "64x64")
    parts = [p.strip() for p in sizes.split(",")]
    geometry = " ".join(parts)
    os.system("convert input.png -resize " + geometry + " out.png")
    return HttpResponse("ok")
