import yaml


def read_pipeline(stream):
    return yaml.load(stream, Loader=yaml.UnsafeLoader)
