import pickle

EMPTY_STATE = pickle.dumps({"jobs": [], "version": 1})


def fresh_state():
    return pickle.loads(EMPTY_STATE)
