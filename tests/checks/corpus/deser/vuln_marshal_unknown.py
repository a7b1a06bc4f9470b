import marshal


def load_code(payload):
    """Load a compiled code object sent by a worker."""
    return marshal.loads(payload)
