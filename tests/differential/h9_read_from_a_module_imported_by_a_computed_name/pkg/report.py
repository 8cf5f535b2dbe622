import importlib
import pickle


def report(part):
    mod = importlib.import_module("pkg." + part)
    table = mod._REG
    snap = dict(table)
    print("n:", len(table), "eq:", snap == table)
    print("kind:", type(table).__name__)
    try:
        data = pickle.dumps(table)
        print("pickled entries:", len(pickle.loads(data)))
    except Exception as e:
        print("pickle failed:", type(e).__name__)
