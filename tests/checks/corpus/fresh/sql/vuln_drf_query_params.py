from django.db import connection
from rest_framework.decorators import api_view
from rest_framework.response import Response


@api_view(["GET"])
def report(request):
    region = request.query_params.get("region", "eu")
    with connection.cursor() as cursor:
        cursor.execute("SELECT SUM(total) FROM sales WHERE region = '%s'" % region)
        (total,) = cursor.fetchone()
    return Response({"total": total})
