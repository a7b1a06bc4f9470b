def defaults():
    limits = eval("{'cpu': 2, 'memory': 512}")
    empty = eval(f"")
    return limits, empty
