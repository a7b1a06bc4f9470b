from sqlalchemy import create_engine

engine = create_engine("postgresql://reports@db/reports")


def monthly_total(month):
    with engine.connect() as conn:
        result = conn.exec_driver_sql(
            "SELECT SUM(amount) FROM payments WHERE month = '%s'" % month
        )
        return result.scalar()
