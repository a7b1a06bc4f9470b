async def latest_value(pool, table, column):
    async with pool.acquire() as conn:
        return await conn.fetchval(
            "SELECT " + column + " FROM " + table + " ORDER BY id DESC LIMIT 1"
        )
