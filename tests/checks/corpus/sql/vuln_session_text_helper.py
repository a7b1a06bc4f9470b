from sqlalchemy import text
from sqlalchemy.orm import sessionmaker

Session = sessionmaker()


def count_where(condition):
    session = Session()
    stmt = text("SELECT count(*) FROM events WHERE " + condition)
    return session.execute(stmt).scalar()
