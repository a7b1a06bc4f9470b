def apply_rule(rule, row):
    """Evaluate a rule expression against a row."""
    return eval(rule, {"row": row})
