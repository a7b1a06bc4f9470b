import yaml


def raw_settings(text):
    return yaml.load(text, Loader=yaml.BaseLoader)


def fast_settings(text):
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(text, Loader=loader)
