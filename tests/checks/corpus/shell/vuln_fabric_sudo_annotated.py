from fabric import Connection


def restart_service(conn: Connection, service: str) -> None:
    conn.sudo(f"systemctl restart {service}")
