from _pickle import loads as decode_blob


def read_job(queue):
    raw = queue.get()
    return decode_blob(raw)
