import pickle

from app.cache import LRUCache


def test_cache_survives_pickling(tmp_path):
    cache = LRUCache(size=2)
    cache["a"] = 1
    blob = pickle.dumps(cache)
    assert pickle.loads(blob)["a"] == 1
    path = tmp_path / "cache.pkl"
    with open(path, "wb") as fh:
        pickle.dump(cache, fh)
    with open(path, "rb") as fh:
        restored = pickle.load(fh)
    assert restored["a"] == 1
