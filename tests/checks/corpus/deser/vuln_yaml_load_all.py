import yaml


def documents(stream):
    return list(yaml.load_all(stream, Loader=yaml.Loader))
