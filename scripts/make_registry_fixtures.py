"""Writes tests/fixtures/registry.zarr: arrays with the zarr-extensions registry's codecs: those
no writer produces yet (`scale_offset`), byte by byte from the registry's texts, with NumPy doing
the arithmetic in each array's own type. The expected values are what decoding must give:
`stored / scale + offset` in that type, and the array's fill value where chunks (or a shard's
inner chunks) are missing. Manifest: tests/fixtures/registry.expected.json.

and `cast_value`, written and read back by its reference implementation (cast-value 0.2.1
through zarr-python 3.1.6).

and `n5_default`: N5 datasets written by tensorstore 0.1.86's n5 driver, each given the
`zarr.json` the registry describes beside its `attributes.json` (its mapping done here, as an
"N5 Default Store" would), read back by tensorstore for the expected values; one copy has its
edge blocks cut to the array's extent, as N5's Java writer stores them (no Python writer does).

and `conditional` (no writer has it yet): its header by hand from the registry's text, the
codecs it wraps applied by numcodecs 0.16.5 (Shuffle, Zstd) and Python's gzip, each chunk's header chosen as
the registry's `compress_if_smaller` would (and a few fixed, to reach every combination).

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


def shard(chunk, inner, fill, encode):
    """`chunk` as a shard of `inner`-shaped chunks in C order, each `encode(part, coords)`, index
    at the end, no index codecs but `bytes`. Inner chunks whose values all equal `fill` are left
    out, as writers do."""
    body, index = b"", []
    for ic in np.ndindex(*[c // i for c, i in zip(chunk.shape, inner)]):
        part = chunk[tuple(slice(j * i, (j + 1) * i) for j, i in zip(ic, inner))]
        if (part == fill).all():
            index.append((2**64 - 1, 2**64 - 1))
            continue
        raw = encode(part, ic)
        index.append((len(body), len(raw)))
        body += raw
    return body + b"".join(struct.pack("<QQ", o, n) for o, n in index)


def write_chunk(path, coords, data):
    """A chunk's bytes under the default key encoding (`c/` and `/`-separated coordinates)."""
    key = path / "c" / "/".join(map(str, coords))
    key.parent.mkdir(parents=True, exist_ok=True)
    key.write_bytes(data)


def padded_chunks(values, chunks, fill):
    """Each chunk of `values` (C order): its grid coordinates, its region of the array, and the
    chunk itself, padded with `fill` past the array's edge."""
    shape = values.shape
    grid = [(n + c - 1) // c for n, c in zip(shape, chunks)]
    for coords in np.ndindex(*grid):
        region = tuple(slice(i * c, min((i + 1) * c, n)) for i, c, n in zip(coords, chunks, shape))
        chunk = np.full(chunks, fill, values.dtype)
        chunk[tuple(slice(0, r.stop - r.start) for r in region)] = values[region]
        yield coords, region, chunk


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
    for coords, region, chunk in padded_chunks(stored, chunks, stored_fill):
        if coords in missing:
            expected[region] = fill
            continue
        if inner is None:
            raw = chunk.astype(dtype.newbyteorder("<")).tobytes()
            raw = gzip.compress(raw, mtime=0) if compress else raw
        else:
            raw = shard(chunk, inner, stored_fill, lambda part, _: part.astype(dtype.newbyteorder("<")).tobytes())
        write_chunk(path, coords, raw)
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


def conditional_arrays():
    """`conditional` over real codecs: each chunk's mask sets the codecs applied to it."""
    import numcodecs

    rng = np.random.default_rng(20261126)  # its own: the arrays above keep their values
    makers = {
        "numcodecs.shuffle": lambda c: numcodecs.Shuffle(elementsize=c["elementsize"]),
        # Python's gzip with mtime 0, as numcodecs' GZip writes it but for the time stamp: the
        # fixtures come out the same on every run.
        "gzip": lambda c: type("GZip", (), {"encode": staticmethod(lambda raw: gzip.compress(raw, c["level"], mtime=0))}),
        "zstd": lambda c: numcodecs.Zstd(level=c["level"]),
    }

    def conditional(raw, codecs, mask, header_bits):
        for i, codec in enumerate(codecs):
            if mask >> i & 1:
                raw = bytes(makers[codec["name"]](codec["configuration"]).encode(raw))
        return mask.to_bytes(header_bits // 8, "little") + raw

    def smallest(raw, codecs, header_bits):
        """compress_if_smaller: each codec kept where it shrinks what reaches it."""
        mask, data = 0, raw
        for i, codec in enumerate(codecs):
            trial = bytes(makers[codec["name"]](codec["configuration"]).encode(data))
            if len(trial) < len(data) or codec["name"] == "numcodecs.shuffle":
                mask, data = mask | 1 << i, trial
        return conditional(raw, codecs, mask, header_bits)

    def write(name, values, chunks, fill, codecs, header_bits=None, masks=None, missing=(), inner=None):
        config = {"codecs": codecs} | ({"header_bits": header_bits} if header_bits else {})
        bits = header_bits or (len(codecs) + 7) // 8 * 8
        dtype = values.dtype
        chain = [LE, {"name": "conditional", "configuration": config}]
        if inner is not None:
            chain = [{"name": "sharding_indexed", "configuration": {
                "chunk_shape": inner, "codecs": chain, "index_codecs": [LE], "index_location": "end"}}]
        shape = list(values.shape)
        meta = {"zarr_format": 3, "node_type": "array", "shape": shape, "data_type": dtype.name,
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
                "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
                "fill_value": fill_json(fill), "codecs": chain, "attributes": {}}
        path = FIXTURES / STORE / name
        path.mkdir(parents=True)
        (path / "zarr.json").write_text(json.dumps(meta, indent=1))
        expected = values.copy()
        masks = masks or {}
        for coords, region, chunk in padded_chunks(values, chunks, fill):
            if coords in missing:
                expected[region] = fill
                continue

            def encode(part, at):
                raw = part.astype(dtype.newbyteorder("<")).tobytes()
                if at in masks:
                    return conditional(raw, codecs, masks[at], bits)
                return smallest(raw, codecs, bits)

            if inner is None:
                data = encode(chunk, coords)
            else:
                data = shard(chunk, inner, fill, lambda part, ic: encode(part, coords + ic))
            write_chunk(path, coords, data)
        file = f"registry__{name.replace('/', '__')}.bin"
        (FIXTURES / "registry.expected" / file).write_bytes(expected.astype(dtype.newbyteorder("<")).tobytes())
        return {"store": STORE, "path": name, "writer": WRITER.replace("by hand", "by hand, codecs by numcodecs 0.16.5 and Python's gzip"),
                "dtype": dtype.name, "shape": shape, "chunks": chunks, "fill_value": fill_json(fill),
                "data": f"registry.expected/{file}", "attrs": {}, "dimension_names": None}

    entries = []
    # Smooth tiles compress, noisy ones are stored raw; two tiles forced to one codec each.
    y, x = np.mgrid[0:40, 0:30]
    image = (1000 + 500 * np.sin(x / 5.0) * np.cos(y / 7.0)).astype(np.uint16)
    image[16:32, 0:16] = rng.integers(0, 65535, (16, 16), dtype=np.uint16)
    shuffle_zstd = [{"name": "numcodecs.shuffle", "configuration": {"elementsize": 2}},
                    {"name": "zstd", "configuration": {"level": 3, "checksum": False}}]
    entries.append(write("conditional/shuffle_zstd", image, [16, 16], 0, shuffle_zstd,
                         masks={(0, 1): 0b01, (2, 0): 0b10}, missing={(2, 1)}))
    # Three codecs, a wider header than they need (room for more), every mask among the chunks.
    series = np.cumsum(rng.standard_normal(8 * 64)).astype(np.float32)
    three = [{"name": "numcodecs.shuffle", "configuration": {"elementsize": 4}},
             {"name": "gzip", "configuration": {"level": 5}},
             {"name": "zstd", "configuration": {"level": 1, "checksum": False}}]
    entries.append(write("conditional/float32_three", series, [64], float("nan"), three, header_bits=16,
                         masks={(i,): m for i, m in enumerate([0b000, 0b001, 0b010, 0b011, 0b100, 0b101, 0b110, 0b111])}))
    # Inside a shard: each inner chunk its own header (gzip where it shrinks it); an inner chunk of
    # the fill value left out.
    volume = (np.arange(12 * 12, dtype=np.int32).reshape(12, 12) * 37) % 1000
    volume[0:6, 6:12] = 7
    noisy = rng.integers(-2**31, 2**31 - 1, (6, 6), dtype=np.int32)
    volume[6:12, 0:6] = noisy
    entries.append(write("conditional/sharded", volume, [12, 12], 7, [{"name": "gzip", "configuration": {"level": 6}}],
                         inner=[6, 6]))
    return entries


def n5_zarr_json(attrs):
    """The registry's Zarr view of an N5 dataset's attributes: the same axes (the transpose
    inside the codec turns N5's column-major blocks around), `/`-separated v2 keys, fill 0."""
    n = len(attrs["dimensions"])
    codecs = [{"name": "transpose", "configuration": {"order": list(range(n - 1, -1, -1))}}]
    codecs.append({"name": "bytes"} if np.dtype(attrs["dataType"]).itemsize == 1
                  else {"name": "bytes", "configuration": {"endian": "big"}})
    c = attrs["compression"]
    if c["type"] == "gzip":
        codecs.append({"name": "numcodecs.zlib" if c.get("useZlib") else "gzip", "configuration": {"level": c["level"]}})
    elif c["type"] == "zstd":
        codecs.append({"name": "zstd", "configuration": {"level": c["level"], "checksum": False}})
    elif c["type"] == "bzip2":
        codecs.append({"name": "numcodecs.bz2", "configuration": {"level": c["blockSize"]}})
    elif c["type"] != "raw":
        raise ValueError(c)
    return {"zarr_format": 3, "node_type": "array", "shape": attrs["dimensions"], "data_type": attrs["dataType"],
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": attrs["blockSize"]}},
            "chunk_key_encoding": {"name": "v2", "configuration": {"separator": "/"}},
            "fill_value": 0, "codecs": [{"name": "n5_default", "configuration": {"codecs": codecs}}], "attributes": {}}


def n5_arrays():
    import tensorstore as ts

    rng = np.random.default_rng(20261127)
    writer = "tensorstore 0.1.86 (n5 driver); zarr.json by the registry's mapping"
    entries = []

    def write(name, values, block, compression, missing=(), truncate=False):
        path = FIXTURES / STORE / name
        spec = {"driver": "n5", "kvstore": {"driver": "file", "path": str(path) + "/"},
                "metadata": {"dimensions": list(values.shape), "blockSize": block, "dataType": values.dtype.name,
                             "compression": compression}, "create": True, "delete_existing": True}
        store = ts.open(spec).result()
        store[...] = values
        for key in missing:  # blocks never written: the fill value
            (path / key).unlink()
        if truncate:
            cut_edge_blocks(path, values.shape, block, values.dtype)
        expected = ts.open({"driver": "n5", "kvstore": {"driver": "file", "path": str(path) + "/"}}).result().read().result()
        attrs = json.loads((path / "attributes.json").read_text())
        (path / "zarr.json").write_text(json.dumps(n5_zarr_json(attrs), indent=1))
        file = f"registry__{name.replace('/', '__')}.bin"
        (FIXTURES / "registry.expected" / file).write_bytes(np.asarray(expected).astype(values.dtype.newbyteorder("<")).tobytes())
        entries.append({"store": STORE, "path": name, "writer": writer + (", edge blocks cut by hand" if truncate else ""),
                        "dtype": values.dtype.name, "shape": list(values.shape), "chunks": block, "fill_value": 0,
                        "data": f"registry.expected/{file}", "attrs": {}, "dimension_names": None})

    def cut_edge_blocks(path, shape, block, dtype):
        """Rewrites the gzip blocks past the array's edge holding only its part, with that shape
        in the header, as N5's Java writer stores edge blocks."""
        grid = [(n + b - 1) // b for n, b in zip(shape, block)]
        for coords in np.ndindex(*grid):
            extent = [min(b, n - i * b) for i, b, n in zip(coords, block, shape)]
            if extent == list(block):
                continue
            file = path / "/".join(map(str, coords))
            raw = file.read_bytes()
            head = 4 + 4 * len(block)
            data = np.frombuffer(gzip.decompress(raw[head:]), dtype.newbyteorder(">"))
            data = data.reshape(block[::-1])[tuple(slice(0, e) for e in extent[::-1])]
            header = struct.pack(">HH", 0, len(block)) + b"".join(struct.pack(">I", e) for e in extent)
            file.write_bytes(header + gzip.compress(np.ascontiguousarray(data).tobytes(), mtime=0))

    plane = (np.arange(37 * 50).reshape(37, 50) * 13 % 65536).astype(np.uint16)
    write("n5_default/uint16_gzip", plane, [16, 16], {"type": "gzip", "level": 6})
    write("n5_default/uint16_gzip_cut_edges", plane, [16, 16], {"type": "gzip", "level": 6}, truncate=True)
    write("n5_default/float32_raw_3d", rng.standard_normal((10, 9, 8)).astype(np.float32), [4, 4, 4],
          {"type": "raw"}, missing=["1/1/0"])
    write("n5_default/int64_zstd", (np.arange(100, dtype=np.int64) - 50) ** 3, [32], {"type": "zstd", "level": 3})
    write("n5_default/uint8_bzip2", rng.integers(0, 4, (20, 30)).astype(np.uint8), [8, 16], {"type": "bzip2", "blockSize": 9})
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
    entries += conditional_arrays()
    entries += n5_arrays()
    (FIXTURES / "registry.expected.json").write_text(json.dumps({"arrays": entries, "groups": []}, indent=1) + "\n")
    print(f"wrote {len(entries)} arrays to {FIXTURES / STORE}")


if __name__ == "__main__":
    main()
