import paramiko


def run_remote(host: str, command: str) -> bytes:
    transport = paramiko.Transport((host, 22))
    transport.connect(username="ops", pkey=paramiko.Ed25519Key.from_private_key_file("id"))
    channel = transport.open_session()
    channel.exec_command(command)
    return channel.recv(65536)
