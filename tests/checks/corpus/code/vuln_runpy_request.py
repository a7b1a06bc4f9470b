import runpy

from django.http import JsonResponse


def run_script(request):
    result = runpy.run_path("/srv/scripts/" + request.GET["script"])
    return JsonResponse({"keys": sorted(result)})
