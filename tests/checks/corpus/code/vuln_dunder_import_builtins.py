def apply_rule(rule_text, record):
    namespace = {"record": record}
    __import__("builtins").exec(rule_text, namespace)
    return namespace.get("result")
