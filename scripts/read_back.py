"""Reads back, with zarr-python and numcodecs' C codecs, the arrays a test wrote.

Usage: read_back.py MANIFEST. The manifest (JSON) lists the cases: each has the store's directory,
the array's path in it, and a file of the values expected (C order, little endian, dtype as NumPy
names it) with the shape. Every case is read whole and compared value for value (NaN equals NaN);
the attributes too where the case gives them. Prints one line per case; exits 1 on any mismatch.
"""
import json
import sys

import numpy as np
import zarr


def check_consolidated(case):
    """A hierarchy opened from its consolidated metadata alone: its nodes, and each array's values
    (read through the consolidated group)."""
    group = zarr.open_consolidated(case["store"], zarr_format=case["zarr_format"])
    members = sorted(name for name, _ in group.members(max_depth=None))
    if members != sorted(case["nodes"]):
        return f"members {members}, expected {sorted(case['nodes'])}"
    for array in case["arrays"]:
        problem = check(dict(array, store=case["store"]), group[array["path"]])
        if problem:
            return f"{array['path']}: {problem}"
    return None


def check(case, arr=None):
    if case.get("consolidated"):
        return check_consolidated(case)
    if arr is None:
        arr = zarr.open_array(store=case["store"], path=case["path"], mode="r")
    want = np.fromfile(case["expected"], dtype=np.dtype(case["dtype"]).newbyteorder("<"))
    want = want.reshape(case["shape"])
    got = arr[...]
    if tuple(arr.shape) != tuple(case["shape"]):
        return f"shape {arr.shape}, expected {case['shape']}"
    kind = np.dtype(case["dtype"]).kind
    same = np.array_equal(got, want, equal_nan=kind in "fc")
    if not same:
        diff = np.argwhere(~((got == want) | ((got != got) & (want != want))))
        at = tuple(int(i) for i in diff[0])
        return f"first difference at {at}: {got[at]!r}, expected {want[at]!r}"
    for key, value in case.get("attributes", {}).items():
        if arr.attrs.get(key) != value:
            return f"attribute {key!r} is {arr.attrs.get(key)!r}, expected {value!r}"
    return None


def main():
    cases = json.load(open(sys.argv[1]))
    failed = 0
    for case in cases:
        try:
            problem = check(case)
        except Exception as e:  # an array zarr-python cannot read is a failure, said
            problem = f"{type(e).__name__}: {e}"
        name = f"{case['store']}:{case.get('path', '')}"
        if problem:
            failed += 1
            print(f"FAIL {name}: {problem}")
        else:
            print(f"ok {name}")
    sys.exit(1 if failed else 0)


main()
