import grpc


def channel(target: str, ca_path: str) -> grpc.Channel:
    with open(ca_path, "rb") as fh:
        credentials = grpc.ssl_channel_credentials(root_certificates=fh.read())
    return grpc.secure_channel(target, credentials)
