"""Writes tests/fixtures/registry.zarr: arrays with the zarr-extensions registry's codecs: those
no writer produces yet (`scale_offset`), byte by byte from the registry's texts, with NumPy doing
the arithmetic in each array's own type. The expected values are what decoding must give:
`stored / scale + offset` in that type, and the array's fill value where chunks (or a shard's
inner chunks) are missing. Manifest: tests/fixtures/registry.expected.json.

and `cast_value`, written and read back by its reference implementation (cast-value 0.2.1
through zarr-python 3.1.6).

Run by `bash scripts/make_fixtures.sh registry` (the v3 venv).
"""
import gzip
import json
import shutil
import struct
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
STORE = "registry.zarr"
RNG = np.random.default_rng(20261125)
WRITER = "scripts/make_registry_fixtures.py (by hand, from the registry's texts)"
LE = {"name": "bytes", "configuration": {"endian": "little"}}


def fill_json(value):
    if isinstance(value, float) and np.isnan(value):
        return "NaN"
    return value


def encode(x, dtype, scale, offset):
    """(x - offset) * scale in the array's type, as the registry defines encoding."""
    with np.errstate(all="raise"):
        return ((x - dtype.type(offset)) * dtype.type(scale)).astype(dtype)


def decode(stored, dtype, scale, offset):
    """stored / scale + offset in the array's type: integer division for integers."""
    if dtype.kind in "iu":
        q = np.trunc(stored.astype(np.float64) / scale).astype(np.int64)  # exact here: |values| < 2^52
        return (q + offset).astype(dtype)
    return (stored / dtype.type(scale) + dtype.type(offset)).astype(dtype)


def shard(chunks, inner_bytes):
    """A shard of inner chunks in C order (None: missing), index at the end, no index codecs
    but `bytes`."""
    body, index = b"", []
    for raw in inner_bytes:
        if raw is None:
            index.append((2**64 - 1, 2**64 - 1))
            continue
        index.append((len(body), len(raw)))
        body += raw
    return body + b"".join(struct.pack("<QQ", o, n) for o, n in index)


def array(name, dtype, shape, chunks, fill, scale, offset, values, compress=False, missing=(), inner=None):
    dtype = np.dtype(dtype)
    config = {k: v for k, v in (("scale", scale), ("offset", offset)) if v is not None}
    scale = 1 if scale is None else scale
    offset = 0 if offset is None else offset
    codecs = [{"name": "scale_offset", "configuration": config}]
    if inner is None:
        codecs += [LE] + ([{"name": "gzip", "configuration": {"level": 1}}] if compress else [])
    else:
        codecs += [{"name": "sharding_indexed", "configuration": {
            "chunk_shape": inner, "codecs": [LE], "index_codecs": [LE], "index_location": "end"}}]
    meta = {"zarr_format": 3, "node_type": "array", "shape": shape, "data_type": dtype.name,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": fill_json(fill), "codecs": codecs, "attributes": {}}
    path = FIXTURES / STORE / name
    path.mkdir(parents=True)
    (path / "zarr.json").write_text(json.dumps(meta, indent=1))
    stored = encode(values, dtype, scale, offset)
    # The fill value passes through the codec as the elements do (the registry says so): the
    # stored padding of edge chunks and a shard's missing inner chunks decode to it.
    stored_fill = encode(np.array([fill], dtype), dtype, scale, offset)[0]
    expected = decode(stored, dtype, scale, offset)
    grid = [(n + c - 1) // c for n, c in zip(shape, chunks)]
    for coords in np.ndindex(*grid):
        region = tuple(slice(i * c, min((i + 1) * c, n)) for i, c, n in zip(coords, chunks, shape))
        if coords in missing:
            expected[region] = fill
            continue
        chunk = np.full(chunks, stored_fill, dtype)
        chunk[tuple(slice(0, r.stop - r.start) for r in region)] = stored[region]
        if inner is None:
            raw = chunk.astype(dtype.newbyteorder("<")).tobytes()
            raw = gzip.compress(raw, mtime=0) if compress else raw
        else:
            cps = [c // i for c, i in zip(chunks, inner)]
            parts = []
            for ic in np.ndindex(*cps):
                # Inner chunks whose values all equal the fill value are left out, as writers do.
                part = chunk[tuple(slice(j * i, (j + 1) * i) for j, i in zip(ic, inner))]
                parts.append(None if (part == stored_fill).all() else part.astype(dtype.newbyteorder("<")).tobytes())
            raw = shard(cps, parts)
        key = path / "c" / "/".join(map(str, coords))
        key.parent.mkdir(parents=True, exist_ok=True)
        key.write_bytes(raw)
    file = f"registry__{name.replace('/', '__')}.bin"
    (FIXTURES / "registry.expected").mkdir(exist_ok=True)
    (FIXTURES / "registry.expected" / file).write_bytes(expected.astype(dtype.newbyteorder("<")).tobytes())
    return {"store": STORE, "path": name, "writer": WRITER, "dtype": dtype.name, "shape": shape,
            "chunks": chunks, "fill_value": fill_json(fill), "data": f"registry.expected/{file}",
            "attrs": {}, "dimension_names": None}


def cast_value_arrays():
    """cast_value, written by its reference implementation (cast-value 0.2.1, zarr-python's codec
    for it), which also reads every array back for the expected values."""
    import zarr
    from cast_value import CastValueNumpyV1
    import cast_value

    writer = f"zarr-python {zarr.__version__} with cast-value {cast_value.__version__}"
    root = zarr.open_group(FIXTURES / STORE, mode="a", zarr_format=3)
    rng = np.random.default_rng(3_2026_11_25)
    entries = []

    def write(name, data, fill, codec, chunks, shards=None, missing=()):
        arr = root.create_array(name, shape=data.shape, dtype=data.dtype, chunks=chunks, shards=shards,
                                fill_value=fill, filters=[codec], compressors=None)
        stored = shards or chunks
        grid = [-(-n // c) for n, c in zip(data.shape, stored)]
        for index in np.ndindex(*grid):
            if index in missing:
                continue
            region = tuple(slice(i * c, min((i + 1) * c, n)) for i, c, n in zip(index, stored, data.shape))
            arr[region] = data[region]
        back = arr[...]
        file = f"registry__{name.replace('/', '__')}.bin"
        (FIXTURES / "registry.expected" / file).write_bytes(back.astype(back.dtype.newbyteorder("<")).tobytes())
        entries.append({"store": STORE, "path": name, "writer": writer, "dtype": back.dtype.name,
                        "shape": list(back.shape), "chunks": list(stored), "fill_value": fill_json(float(fill) if back.dtype.kind == "f" else int(fill)),
                        "data": f"registry.expected/{file}", "attrs": {}, "dimension_names": None})

    # The registry's example: float64 in [0, 2540] stored as uint8 (after a scale the caller
    # applied), NaN mapped to 0 and back, clamped.
    values = rng.uniform(-20, 280, (12, 10))
    values[0, :3] = [np.nan, 0.5, 1.5]  # NaN, and ties for nearest-even
    write("cast_value/float64_to_uint8", values, np.nan,
          CastValueNumpyV1(data_type="uint8", rounding="nearest-even", out_of_range="clamp",
                           scalar_map={"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}),
          chunks=(5, 4), missing={(2, 2)})
    # Truncation and wrap-around, float32 to int16.
    values = (rng.standard_normal(64) * 40000).astype(np.float32)
    values[:4] = [-0.9, 0.9, 32767.5, -32768.7]
    write("cast_value/float32_to_int16_wrap", values, 0,
          CastValueNumpyV1(data_type="int16", rounding="towards-zero", out_of_range="wrap"), chunks=(16,))
    # Integers narrowed, clamped; and a sharded one with a missing shard and an inner chunk of
    # the fill value (the fill value passes through the cast).
    values = rng.integers(-1000, 1000, (20, 20)).astype(np.int32)
    write("cast_value/int32_to_uint8_clamp", values, 7,
          CastValueNumpyV1(data_type="uint8", out_of_range="clamp"), chunks=(8, 8))
    values = rng.integers(0, 200, (16, 16)).astype(np.int64)
    values[:4, :4] = 9
    write("cast_value/int64_to_uint8_sharded", values, 9,
          CastValueNumpyV1(data_type="uint8"), chunks=(4, 4), shards=(8, 8), missing={(1, 1)})
    # Floats narrowed with each directed rounding.
    base = (rng.standard_normal(40) * 100).astype(np.float64)
    for rounding in ["towards-positive", "towards-negative", "nearest-away", "towards-zero"]:
        write(f"cast_value/float64_to_float16_{rounding}", base, 0.5,
              CastValueNumpyV1(data_type="float16", rounding=rounding, out_of_range="clamp"), chunks=(16,))
    # Integers stored as floats (exact here) and back.
    values = rng.integers(-2**20, 2**20, 30).astype(np.int64)
    write("cast_value/int64_to_float32", values, -1, CastValueNumpyV1(data_type="float32"), chunks=(10,))
    return entries


def main():
    shutil.rmtree(FIXTURES / STORE, ignore_errors=True)
    shutil.rmtree(FIXTURES / "registry.expected", ignore_errors=True)
    (FIXTURES / STORE).mkdir()
    (FIXTURES / STORE / "zarr.json").write_text(json.dumps({"zarr_format": 3, "node_type": "group", "attributes": {}}))
    entries = []
    # The registry's float32 example (offset 5, scale 0.1), compressed; decoding is not exact.
    floats = (RNG.standard_normal(20) * 50 + 5).astype(np.float32)
    floats[:3] = [np.nan, np.inf, -0.0]
    entries.append(array("scale_offset/float32", "float32", [20], [8], 5.0, 0.1, 5, floats, compress=True))
    # The registry's uint16 range reduction ([1000, 1255] shifted to [0, 255]), a chunk missing.
    ints = RNG.integers(1000, 1256, (6, 7)).astype(np.uint16)
    entries.append(array("scale_offset/uint16", "uint16", [6, 7], [3, 4], 1000, None, 1000, ints, missing={(1, 1)}))
    # Integers scaled up: stored values are multiples of the scale.
    small = RNG.integers(-300, 300, (8, 8)).astype(np.int16)
    small[4:, :4] = 10  # an inner chunk of the fill value: left out of the shard
    entries.append(array("scale_offset/int16_sharded", "int16", [8, 8], [8, 8], 10, 3, -20, small, inner=[4, 4]))
    doubles = RNG.standard_normal((5, 5)) * 1e6
    entries.append(array("scale_offset/float64_nan_fill", "float64", [5, 5], [2, 3], float("nan"), 1e-3, -2.5, doubles, missing={(0, 1)}))
    entries += cast_value_arrays()
    (FIXTURES / "registry.expected.json").write_text(json.dumps({"arrays": entries, "groups": []}, indent=1) + "\n")
    print(f"wrote {len(entries)} arrays to {FIXTURES / STORE}")


if __name__ == "__main__":
    main()
