"""Writes tests/fixtures/registry.zarr: arrays with the zarr-extensions registry's codecs that no
writer produces yet (`scale_offset`), byte by byte from the registry's texts, with NumPy doing
the arithmetic in each array's own type. The expected values are what decoding must give:
`stored / scale + offset` in that type, and the array's fill value where chunks (or a shard's
inner chunks) are missing. Manifest: tests/fixtures/registry.expected.json.

Run by `bash scripts/make_fixtures.sh registry` (needs only NumPy: the v3 venv).
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
    (FIXTURES / "registry.expected.json").write_text(json.dumps({"arrays": entries, "groups": []}, indent=1) + "\n")
    print(f"wrote {len(entries)} arrays to {FIXTURES / STORE}")


if __name__ == "__main__":
    main()
