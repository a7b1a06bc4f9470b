import yaml


def read_manifest(path):
    with open(path) as fh:
        return yaml.load(fh)
