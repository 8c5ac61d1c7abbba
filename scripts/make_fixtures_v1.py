#!/usr/bin/env python3
"""Writes the committed Zarr v1 arrays from the specification (storage specification 1.0: no
maintained writer of v1 exists; zarr-python dropped it), with the expected values beside them.

Run with `bash scripts/make_fixtures.sh v1` (the v2 fixtures' venv: numpy and numcodecs, whose C
codecs compress the chunks). Each array is a directory holding what the spec says and nothing
else: `meta` (written as zarr 1.x wrote it: json.dumps with indent 4 and sorted keys, so a NaN
fill value is Python's bare NaN token), `attrs`, and its chunks under keys `i.j`, each the raw
chunk bytes (C or F order) through the primary compressor with no header. Edge chunks keep the
full chunk shape; their part outside the array is junk (0x5A bytes), which a reader must ignore.
Some chunks are left out: they read as the fill value (zeros where it is null).
Outputs:
  tests/fixtures/v1/<name>/          the arrays (see ARRAYS below)
  tests/fixtures/v1.expected.json    their manifest, as the other fixture sets'
  tests/fixtures/v1.expected/*.bin   their values in C order (see make_fixtures_v2.py)
"""
import itertools
import json
import shutil

import numcodecs
import numpy as np

import make_fixtures_v2 as fixtures

OUT = fixtures.FIXTURES / "v1"
# The manifest and values folder of this set (make_fixtures_v2's record() writes there).
fixtures.EXPECTED_DIR = fixtures.FIXTURES / "v1.expected"
fixtures.MANIFEST = fixtures.FIXTURES / "v1.expected.json"
fixtures.EXPECTED = []
WRITER = f"the Zarr v1 spec (scripts/make_fixtures_v1.py; numcodecs {numcodecs.__version__}'s C codecs)"
RNG = np.random.default_rng(20261127)

# name: dtype (a NumPy typestr or a structured list, as `meta` holds it), shape, chunks, order,
# compression, compression_opts, fill value, chunks left out (grid coordinates).
ARRAYS = {
    "none_int32": ("<i4", (13, 11), (5, 4), "C", "none", None, 42, [(1, 1)]),
    "zlib_float64": ("<f8", (9, 7), (4, 4), "C", "zlib", 1, float("nan"), [(0, 1)]),
    "bz2_uint16_big_fortran": (">u2", (10, 6), (4, 4), "F", "bz2", 9, 7, [(2, 0)]),
    "lzma_int64_object": ("<i8", (12,), (5,), "C", "lzma",
                          {"check": -1, "filters": None, "format": 1, "preset": 1}, -3, []),
    "lzma_int16_preset": ("<i2", (6, 6), (3, 3), "F", "lzma", 6, 0, [(1, 1)]),
    "blosc_uint16_object": ("<u2", (20, 9), (8, 4), "C", "blosc",
                            {"clevel": 5, "cname": "lz4", "shuffle": 1}, 0, [(1, 2)]),
    "blosc_float32_name_fortran": ("<f4", (7, 5, 3), (3, 2, 2), "F", "blosc", "zstd", 1.5, []),
    "blosc_uint8_level": ("|u1", (17,), (6,), "C", "blosc", 3, 255, [(1,)]),
    "bool_zlib": ("|b1", (5, 5), (2, 3), "C", "zlib", 1, True, [(0, 0)]),
    "null_fill_int16": ("<i2", (8, 8), (4, 4), "C", "zlib", 1, None, [(0, 1), (1, 0)]),
    "structured_zlib": ([["r", "|u1"], ["g", "<u2"], ["xy", "<f4", [2]]], (5, 4), (2, 3), "C",
                        "zlib", 1, None, [(1, 1)]),
    "structured_blosc_fortran": ([["id", "<i4"], ["w", ">f8"]], (6, 5), (4, 2), "F", "blosc",
                                 {"clevel": 1, "cname": "blosclz", "shuffle": 2}, None, []),
}


def numpy_dtype(dtype):
    """The NumPy dtype of a `meta` dtype (a typestr, or NumPy's descr as JSON lists)."""
    if isinstance(dtype, str):
        return np.dtype(dtype)
    return np.dtype([tuple(field[:2]) + ((tuple(field[2]),) if len(field) > 2 else ()) for field in dtype])


def codec(compression, opts):
    """The numcodecs codec that compresses as `compression` with `compression_opts` says."""
    if compression == "none":
        return None
    if compression == "zlib":
        return numcodecs.Zlib(level=opts)
    if compression == "bz2":
        return numcodecs.BZ2(level=opts)
    if compression == "lzma":
        if isinstance(opts, int):
            return numcodecs.LZMA(preset=opts)
        return numcodecs.LZMA(format=opts["format"], check=opts["check"], preset=opts["preset"],
                              filters=opts["filters"])
    if compression == "blosc":
        if isinstance(opts, str):
            return numcodecs.Blosc(cname=opts, clevel=5, shuffle=1)
        if isinstance(opts, int):
            return numcodecs.Blosc(cname="blosclz", clevel=opts, shuffle=1)
        return numcodecs.Blosc(cname=opts["cname"], clevel=opts["clevel"], shuffle=opts["shuffle"])
    raise ValueError(compression)


def values(dtype, shape):
    if dtype.fields is not None:
        return fixtures.records_for(dtype, shape)
    return fixtures.values_for(dtype, shape)


def write_array(name, dtype_json, shape, chunks, order, compression, opts, fill, missing):
    dtype = numpy_dtype(dtype_json)
    data = values(dtype, shape)
    path = OUT / name
    path.mkdir(parents=True)
    meta = {"chunks": list(chunks), "compression": compression, "compression_opts": opts,
            "dtype": dtype_json, "fill_value": fill, "order": order, "shape": list(shape),
            "zarr_format": 1}
    # As zarr 1.x wrote it (Python's json: NaN stays a bare token).
    (path / "meta").write_text(json.dumps(meta, indent=4, sort_keys=True, ensure_ascii=True))
    attrs = {"name": name, "writer": "zarr-wasm's v1 fixture script"}
    (path / "attrs").write_text(json.dumps(attrs, indent=4, sort_keys=True, ensure_ascii=True))
    compressor = codec(compression, opts)
    expected = data.copy()
    grid = [-(-s // c) for s, c in zip(shape, chunks)]
    for coords in itertools.product(*(range(g) for g in grid)):
        region = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(coords, chunks, shape))
        if tuple(coords) in missing:
            # Read as the fill value; zeros where it is null (the spec leaves it undefined).
            expected[region] = np.zeros((), dtype) if fill is None else fill
            continue
        chunk = np.frombuffer(b"\x5a" * (int(np.prod(chunks)) * dtype.itemsize), dtype=dtype).reshape(chunks).copy()
        chunk[tuple(slice(0, r.stop - r.start) for r in region)] = data[region]
        raw = chunk.tobytes(order=order)
        (path / ".".join(map(str, coords))).write_bytes(raw if compressor is None else compressor.encode(raw))
    fill_value = None if fill is None else np.array(fill, dtype=dtype)[()] if dtype.fields is None else None
    fixtures.record("v1", name, expected, chunks, fill_value, WRITER, attrs=attrs, order=order, zarr_format=1)


if __name__ == "__main__":
    shutil.rmtree(OUT, ignore_errors=True)
    shutil.rmtree(fixtures.EXPECTED_DIR, ignore_errors=True)
    for name, spec in ARRAYS.items():
        write_array(name, *spec)
    fixtures.MANIFEST.write_text(json.dumps({"arrays": fixtures.EXPECTED, "groups": {}}, indent=1) + "\n")
    print(f"{len(ARRAYS)} Zarr v1 arrays written into {OUT}")
