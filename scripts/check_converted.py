"""Reads, with zarr-python and numcodecs' C codecs, what `zarr-wasm convert` wrote, and compares it
with its source (tests/node/convert.test.mjs).

Usage: check_converted.py MANIFEST. The manifest (JSON) lists checks; each is one of:
- {"kind": "array", "dst", "path", "src", "src_path"}: the copy's values are the source's
  (zarr-python reads both), NaN equal to NaN; or with "bin", "dtype", "shape" instead of a
  source, the values of a file (C order, little endian).
  Optional: "zarr_format", "chunks" (the inner chunks where sharded), "shards", "codec" (the
  name of the last codec, or v2's compressor id), "dimension_names", "attrs" (equal).
- {"kind": "group", "dst", "path", "attrs"}: the group's attributes are these.
- {"kind": "consolidated", "dst", "nodes"}: zarr.open_consolidated lists exactly these nodes.
- {"kind": "partial", "dst", "path", "src", "src_path"}: a conversion stopped part way: every
  chunk (or shard) stored decodes and holds the source's values; at least one is stored.
Prints one line per check; exits 1 on any failure.
"""
import json
import os
import sys

import numpy as np
import zarr


def same(a, b):
    if a.shape != b.shape:
        return f"shape {a.shape}, expected {b.shape}"
    if a.dtype.kind in "fc":
        equal = np.array_equal(a, b, equal_nan=True)
    else:
        equal = np.array_equal(a, b)
    if not equal:
        where = np.argwhere(a != b)
        return f"values differ, first at {where[0].tolist() if len(where) else '?'}"
    return None


def last_codec(arr):
    if arr.metadata.zarr_format == 2:
        compressor = arr.metadata.compressor
        return None if compressor is None else compressor.codec_id
    codecs = arr.metadata.codecs
    if codecs and codecs[-1].__class__.__name__ == "ShardingCodec":
        codecs = codecs[-1].codecs
    return type(codecs[-1]).__name__.replace("Codec", "").lower()


def check_array(case):
    arr = zarr.open_array(store=case["dst"], path=case["path"], mode="r")
    if "zarr_format" in case and arr.metadata.zarr_format != case["zarr_format"]:
        return f"zarr_format {arr.metadata.zarr_format}"
    if "chunks" in case and list(arr.chunks) != case["chunks"]:
        return f"chunks {arr.chunks}, expected {case['chunks']}"
    if "shards" in case and (list(arr.shards) if arr.shards else None) != case["shards"]:
        return f"shards {arr.shards}, expected {case['shards']}"
    if "codec" in case and last_codec(arr) != case["codec"]:
        return f"codec {last_codec(arr)}, expected {case['codec']}"
    if "dimension_names" in case and list(arr.metadata.dimension_names or []) != case["dimension_names"]:
        return f"dimension_names {arr.metadata.dimension_names}"
    if "attrs" in case and dict(arr.attrs) != case["attrs"]:
        return f"attributes {dict(arr.attrs)}"
    if "bin" in case:
        expected = np.fromfile(case["bin"], dtype=np.dtype(case["dtype"]).newbyteorder("<"))
        expected = expected.reshape(case["shape"])
    else:
        expected = zarr.open_array(store=case["src"], path=case["src_path"], mode="r")[...]
    return same(arr[...], expected)


def check_group(case):
    group = zarr.open_group(store=case["dst"], path=case["path"], mode="r")
    attrs = json.loads(json.dumps(dict(group.attrs)))
    if attrs != case["attrs"]:
        return f"attributes {json.dumps(attrs)[:400]}"
    return None


def check_consolidated(case):
    group = zarr.open_consolidated(case["dst"])
    members = sorted(name for name, _ in group.members(max_depth=None))
    if members != sorted(case["nodes"]):
        return f"members {members}"
    return None


def check_partial(case):
    arr = zarr.open_array(store=case["dst"], path=case["path"], mode="r")
    src = zarr.open_array(store=case["src"], path=case["src_path"], mode="r")
    unit = arr.shards or arr.chunks
    root = os.path.join(case["dst"], case["path"], "c")
    stored = 0
    for dirpath, _, files in os.walk(root):
        for name in files:
            if ".partial" in name:
                return f"a temporary file is left: {os.path.join(dirpath, name)}"
            coords = [int(p) for p in os.path.relpath(os.path.join(dirpath, name), root).split(os.sep)]
            region = tuple(slice(c * u, min((c + 1) * u, s)) for c, u, s in zip(coords, unit, arr.shape))
            problem = same(arr[region], src[region])
            if problem:
                return f"chunk {coords}: {problem}"
            stored += 1
    if stored == 0:
        return "no chunk stored"
    case["stored"] = stored
    return None


CHECKS = {"array": check_array, "group": check_group, "consolidated": check_consolidated, "partial": check_partial}


def main():
    cases = json.load(open(sys.argv[1]))
    failed = 0
    for case in cases:
        try:
            problem = CHECKS[case["kind"]](case)
        except Exception as err:  # noqa: BLE001 - any failure to read is the check's failure
            problem = f"{type(err).__name__}: {err}"
        name = f"{case['kind']} {case['dst']}:{case.get('path', '')}"
        if problem:
            failed += 1
            print(f"FAIL {name}: {problem}")
        else:
            extra = f" ({case['stored']} stored)" if "stored" in case else ""
            print(f"ok {name}{extra}")
    sys.exit(1 if failed else 0)


main()
