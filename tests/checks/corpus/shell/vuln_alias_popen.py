import subprocess

from django.http import HttpResponse

launch = subprocess.Popen


def convert(request):
    fmt = request.POST["format"]
    proc = launch("convert upload.png out." + fmt, shell=True)
    proc.wait()
    return HttpResponse("done")
