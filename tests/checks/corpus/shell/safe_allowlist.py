import os

from django.http import HttpResponse, HttpResponseBadRequest

FORMATS = ("csv", "json", "xml")


def export(request):
    fmt = request.GET.get("format", "csv")
    if fmt not in FORMATS:
        return HttpResponseBadRequest("unknown format")
    data = os.popen("export-tool --format %s" % fmt).read()
    return HttpResponse(data)
