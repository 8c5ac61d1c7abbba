"""Reads back, with zarr-python and numcodecs' C codecs, the arrays a test wrote; and with
tensorstore those a case marks for it.

Usage: read_back.py MANIFEST. The manifest (JSON) lists the cases: each has the store's directory,
the array's path in it, and a file of the values expected (C order, little endian, dtype as NumPy
names it) with the shape; or, for strings, a JSON file of the values (`{"kind": "str" or "bytes",
"values": [...]}`, bytes in hex). Every case is read whole and compared value for value (NaN
equals NaN); the attributes too where the case gives them. A case with `"tensorstore": true` is
read by tensorstore as well (its `zarr3` or `zarr` driver). Prints one line per case; exits 1 on
any mismatch.
"""
import json
import sys

import numpy as np
import tensorstore as ts
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
    # A case may check a region of a large array: `region` [[start, stop], ...] per dimension,
    # with `shape` the array's and the expected values the region's.
    region = tuple(slice(a, b) for a, b in case.get("region", []))
    if tuple(arr.shape) != tuple(case["shape"]):
        return f"shape {arr.shape}, expected {case['shape']}"
    if region:
        want = np.fromfile(case["expected"], dtype=np.dtype(case["dtype"]).newbyteorder("<"))
        want = want.reshape([b - a for a, b in case["region"]])
        problem = compare(arr[region], want, case["dtype"], "zarr-python")
        if problem is None and case.get("tensorstore"):
            problem = compare(read_tensorstore(case, region), want, case["dtype"], "tensorstore")
        return problem
    if "strings" in case:
        problem = compare_strings(case, arr[...], "zarr-python")
    else:
        want = np.fromfile(case["expected"], dtype=np.dtype(case["dtype"]).newbyteorder("<"))
        want = want.reshape(case["shape"])
        problem = compare(arr[...], want, case["dtype"], "zarr-python")
        if problem is None and case.get("tensorstore"):
            problem = compare(read_tensorstore(case), want, case["dtype"], "tensorstore")
    if problem:
        return problem
    for key, value in case.get("attributes", {}).items():
        if arr.attrs.get(key) != value:
            return f"attribute {key!r} is {arr.attrs.get(key)!r}, expected {value!r}"
    return None


def compare(got, want, dtype, reader):
    kind = np.dtype(dtype).kind
    if got.shape != want.shape:
        return f"{reader}: shape {got.shape}, expected {want.shape}"
    if not np.array_equal(got, want, equal_nan=kind in "fc"):
        diff = np.argwhere(~((got == want) | ((got != got) & (want != want))))
        at = tuple(int(i) for i in diff[0])
        return f"{reader}: first difference at {at}: {got[at]!r}, expected {want[at]!r}"
    return None


def compare_strings(case, got, reader):
    expected = json.load(open(case["strings"]))
    values = expected["values"]
    if expected["kind"] == "bytes":
        values = [bytes.fromhex(v) for v in values]
    flat = [v if isinstance(v, (str, bytes)) else str(v) for v in np.asarray(got).reshape(-1).tolist()]
    if len(flat) != len(values):
        return f"{reader}: {len(flat)} values, expected {len(values)}"
    for i, (g, w) in enumerate(zip(flat, values)):
        if g != w:
            return f"{reader}: first difference at flat index {i}: {g!r}, expected {w!r}"
    return None


def read_tensorstore(case, region=()):
    """The array (or `region` of it) as tensorstore reads it from the directory."""
    path = f"{case['store']}/{case['path']}"
    driver = "zarr3" if case.get("zarr_format", 3) == 3 else "zarr"
    store = ts.open({"driver": driver, "kvstore": {"driver": "file", "path": path}}, open=True).result()
    return (store[region] if region else store).read().result()


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
