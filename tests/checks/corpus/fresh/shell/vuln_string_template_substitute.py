import os
from string import Template

from django.http import HttpResponse

BACKUP = Template("pg_dump --table=$table shop > /backups/$table.sql")


def backup_table(request):
    table = request.GET.get("table", "orders")
    os.system(BACKUP.substitute(table=table))
    return HttpResponse("started")
