import marshal
import shelve

import yaml


def read_config(path):
    with open(path) as fh:
        config = yaml.load(fh, Loader=yaml.CSafeLoader)
    with shelve.open("cache/settings.db") as db:
        db["config"] = config
    return marshal.dumps(compile("1 + 1", "<const>", "eval")), config
