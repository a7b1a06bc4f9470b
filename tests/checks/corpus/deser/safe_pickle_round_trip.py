import pickle


def deep_copy(obj):
    """Copy an object graph through pickle."""
    return pickle.loads(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))
