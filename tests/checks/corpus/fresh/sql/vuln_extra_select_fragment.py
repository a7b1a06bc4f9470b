from django.db.models import QuerySet


def annotate_match(qs: QuerySet, term):
    return qs.extra(select={"is_match": "title LIKE '%%%s%%'" % term})
