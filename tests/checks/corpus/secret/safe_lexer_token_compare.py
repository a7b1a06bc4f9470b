def classify(token, value):
    if token == "keyword":
        return value.upper()
    if token == "name":
        return value
    return None
