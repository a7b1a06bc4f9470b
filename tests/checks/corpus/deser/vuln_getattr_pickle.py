import base64
import pickle

from django.http import HttpResponse


def restore(request):
    decode = getattr(pickle, "loads")
    state = decode(base64.b64decode(request.COOKIES["state"]))
    return HttpResponse(str(state))
