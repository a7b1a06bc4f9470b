import os

from django.http import HttpResponse


def export(request):
    fmt = request.GET.get("format", "csv")
    data = os.popen("export-tool --format %s" % fmt).read()
    return HttpResponse(data)
