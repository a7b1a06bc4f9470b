import socket
import ssl

INTERNAL_CA = "/etc/ssl/internal/ca.pem"


def open_channel(host, port=8443):
    ctx = ssl.create_default_context(cafile=INTERNAL_CA)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    raw = socket.create_connection((host, port))
    return ctx.wrap_socket(raw, server_hostname=host)
