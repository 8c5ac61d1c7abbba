#!/usr/bin/env python3
"""Writes every committed data set with real Zarr writers, and the expected values beside them.

Run with `bash scripts/make_fixtures.sh` (makes a pinned venv). Outputs:
  tests/fixtures/v3.zarr/            a v3 hierarchy written by zarr-python (numcodecs' C codecs)
  tests/fixtures/v3.expected.json    per array: path, dtype, shape, chunks, fill value, attrs, data file
  tests/fixtures/v3.expected/*.bin   each array's values, little endian, C order (bool as 0/1 bytes)
  tests/fixtures/bad.zarr/           corrupt or unsupported variants, each derived from a real array
  www/data/sample.zarr/              the demo page's image
  bench/data/bench.zarr/             2048x2048 uint16 images for `npm run bench`
Everything is seeded, so values are the same on every run (gzip headers carry a timestamp, so
compressed bytes may differ).
"""
import json
import math
import shutil
from pathlib import Path

import numpy as np
import zarr
from zarr.codecs import BytesCodec, GzipCodec

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
RNG = np.random.default_rng(20261122)


def fill_json(value, dtype):
    """The fill value in the form zarr.json uses, for the expected-values manifest."""
    if dtype.kind == "f":
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return float(value)
    if dtype.kind == "b":
        return bool(value)
    return int(value)


def values_for(dtype, shape):
    """Random values over the type's whole range, with its extremes and (floats) specials."""
    n = int(np.prod(shape))
    if dtype.kind == "b":
        data = RNG.integers(0, 2, n).astype(bool)
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        data = RNG.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        data[:2] = [info.min, info.max]
    else:
        data = (RNG.standard_normal(n) * 1e3).astype(dtype)
        data[:4] = [np.nan, np.inf, -np.inf, -0.0]
    return data.reshape(shape)


class Writer:
    def __init__(self, path):
        self.path = path
        shutil.rmtree(path, ignore_errors=True)
        self.root = zarr.open_group(path, mode="w", zarr_format=3,
                                    attributes={"title": "zarr-wasm v3 fixtures", "writer": f"zarr-python {zarr.__version__}"})
        self.expected = []

    def array(self, name, data, chunks, fill_value=0, compressors=None, serializer="auto", write=None, **kw):
        arr = self.root.create_array(name, shape=data.shape, chunks=chunks, dtype=data.dtype,
                                     fill_value=fill_value, compressors=compressors, serializer=serializer, **kw)
        if write is None:
            arr[...] = data
        else:
            # Only some regions are written: the rest of the chunks never exist in the store.
            expected = np.full(data.shape, fill_value, dtype=data.dtype)
            for region in write:
                arr[region] = data[region]
                expected[region] = data[region]
            data = expected
        assert np.array_equal(arr[...], data, equal_nan=True), name
        file = name.replace("/", "__") + ".bin"
        out = np.ascontiguousarray(data)
        out = out.astype(out.dtype.newbyteorder("<")) if out.dtype.kind != "b" else out.astype(np.uint8)
        (self.path.parent / "v3.expected").mkdir(exist_ok=True)
        (self.path.parent / "v3.expected" / file).write_bytes(out.tobytes())
        self.expected.append({
            "path": name, "dtype": data.dtype.name, "shape": list(data.shape), "chunks": list(chunks),
            "fill_value": fill_json(fill_value, data.dtype), "data": f"v3.expected/{file}",
            "attrs": dict(arr.attrs), "dimension_names": list(arr.metadata.dimension_names) if arr.metadata.dimension_names else None,
        })
        return arr


def write_v3():
    shutil.rmtree(FIXTURES / "v3.expected", ignore_errors=True)
    w = Writer(FIXTURES / "v3.zarr")
    w.root.create_group("dtypes", attributes={"about": "every core numeric type, gzip, edge chunks"})
    for name in ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"]:
        dtype = np.dtype(name)
        fill = False if name == "bool" else 0
        w.array(f"dtypes/{name}", values_for(dtype, (13, 11)), (5, 4), fill_value=fill, compressors=[GzipCodec(level=1)])
    w.root.create_group("big_endian")
    for name in ["uint16", "int32", "float64", "int64"]:
        w.array(f"big_endian/{name}", values_for(np.dtype(name), (9, 7)), (4, 4), serializer=BytesCodec(endian="big"))
    w.root.create_group("layouts")
    w.array("layouts/d3", values_for(np.dtype("int32"), (7, 6, 5)), (3, 4, 2), compressors=[GzipCodec(level=5)])
    w.array("layouts/d1", values_for(np.dtype("float32"), (100,)), (16,))
    w.array("layouts/scalar", np.array(7, dtype="int32"), ())
    w.array("layouts/dot_separator", values_for(np.dtype("uint8"), (10, 10)), (3, 3),
            chunk_key_encoding={"name": "default", "separator": "."})
    w.array("layouts/v2_keys", values_for(np.dtype("uint8"), (10, 10)), (3, 3),
            chunk_key_encoding={"name": "v2", "separator": "."})
    w.array("layouts/v2_keys_slash", values_for(np.dtype("uint8"), (10, 10)), (3, 3),
            chunk_key_encoding={"name": "v2", "separator": "/"})
    w.array("layouts/named", values_for(np.dtype("int16"), (6, 8)), (3, 3), dimension_names=["y", "x"],
            attributes={"units": "counts", "scale": [0.5, 0.25]})
    w.array("layouts/many_chunks", values_for(np.dtype("uint8"), (64, 64)), (4, 4), compressors=[GzipCodec(level=1)])
    w.root.create_group("sparse")
    w.array("sparse/nan_fill", values_for(np.dtype("float64"), (40, 40)), (10, 10), fill_value=float("nan"),
            write=[np.s_[0:10, 0:10], np.s_[25:33, 12:18]])
    w.array("sparse/int_fill", values_for(np.dtype("int16"), (40, 40)), (10, 10), fill_value=42,
            compressors=[GzipCodec(level=1)], write=[np.s_[5:15, 30:40]])
    w.root.create_group("nested").create_group("deeper", attributes={"depth": 2})
    w.array("nested/deeper/leaf", values_for(np.dtype("uint16"), (5, 5)), (5, 5))
    manifest = {"writer": f"zarr-python {zarr.__version__}", "arrays": w.expected,
                "groups": {"": dict(w.root.attrs), "nested/deeper": {"depth": 2}}}
    (FIXTURES / "v3.expected.json").write_text(json.dumps(manifest, indent=1) + "\n")


def write_bad():
    """Corrupt and unsupported stores. Writers never produce these, so each starts from a real
    zarr-python array and breaks exactly one thing."""
    bad = FIXTURES / "bad.zarr"
    shutil.rmtree(bad, ignore_errors=True)
    root = zarr.open_group(bad, mode="w", zarr_format=3)
    data = values_for(np.dtype("uint16"), (8, 8))
    for name, compressors in [("truncated_gzip", [GzipCodec(level=1)]), ("corrupt_gzip", [GzipCodec(level=1)]),
                              ("wrong_size", None), ("unknown_codec", None), ("unknown_dtype", None)]:
        root.create_array(name, shape=data.shape, chunks=(4, 4), dtype=data.dtype, compressors=compressors)[...] = data
    chunk = bad / "truncated_gzip" / "c" / "0" / "0"
    chunk.write_bytes(chunk.read_bytes()[:len(chunk.read_bytes()) // 2])
    chunk = bad / "corrupt_gzip" / "c" / "0" / "0"
    raw = bytearray(chunk.read_bytes())
    for i in range(12, len(raw) - 8, 3):
        raw[i] ^= 0x5A
    chunk.write_bytes(bytes(raw))
    chunk = bad / "wrong_size" / "c" / "0" / "0"
    chunk.write_bytes(chunk.read_bytes() + b"\0\0\0")
    for name, edit in [("unknown_codec", lambda m: m["codecs"].append({"name": "frobnicate", "configuration": {}})),
                       ("unknown_dtype", lambda m: m.update(data_type="uint7"))]:
        meta_path = bad / name / "zarr.json"
        meta = json.loads(meta_path.read_text())
        edit(meta)
        meta_path.write_text(json.dumps(meta, indent=2))
    for name, text in [("not_json", "{ this is not json"), ("not_zarr", json.dumps({"hello": "world"}))]:
        (bad / name).mkdir()
        (bad / name / "zarr.json").write_text(text)


def synthetic_image(size, seed):
    """A microscopy-like uint16 image: a smooth background, bright round cells and camera noise."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:size, 0:size].astype(np.float32) / size
    image = 400 + 300 * np.sin(3 * x + 1) * np.cos(2 * y)
    for _ in range(size // 8):
        cy, cx = rng.random(2)
        r = rng.uniform(0.004, 0.02)
        image += rng.uniform(800, 3000) * np.exp(-((y - cy) ** 2 + (x - cx) ** 2) / (2 * r * r))
    image += rng.normal(0, 20, image.shape)
    return np.clip(image, 0, 4095).astype(np.uint16)


def write_sample():
    path = ROOT / "www" / "data" / "sample.zarr"
    shutil.rmtree(path, ignore_errors=True)
    root = zarr.open_group(path, mode="w", zarr_format=3, attributes={"description": "synthetic cells, 12-bit"})
    root.create_array("image", data=synthetic_image(512, 1), chunks=(128, 128), compressors=[GzipCodec(level=6)],
                      dimension_names=["y", "x"], attributes={"contrast_limits": [300, 3000]})


def write_bench():
    path = ROOT / "bench" / "data" / "bench.zarr"
    shutil.rmtree(path, ignore_errors=True)
    image = synthetic_image(2048, 2)
    root = zarr.open_group(path, mode="w", zarr_format=3)
    root.create_array("raw", data=image, chunks=(256, 256), compressors=None)
    root.create_array("gzip", data=image, chunks=(256, 256), compressors=[GzipCodec(level=5)])


if __name__ == "__main__":
    write_v3()
    write_bad()
    write_sample()
    write_bench()
    print("fixtures written with zarr-python", zarr.__version__)
