import jsonpickle

DEFAULTS = jsonpickle.decode('{"retries": 3, "timeout": 10}')
