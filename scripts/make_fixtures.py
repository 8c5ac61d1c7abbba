#!/usr/bin/env python3
"""Writes every committed data set with real Zarr writers, and the expected values beside them.

Run with `bash scripts/make_fixtures.sh` (makes a pinned venv). Outputs:
  tests/fixtures/v3.zarr/            a v3 hierarchy written by zarr-python (numcodecs' C codecs)
  tests/fixtures/consolidated.zarr/  a v3 hierarchy with zarr-python's consolidated metadata
  tests/fixtures/tensorstore.zarr/   arrays written by tensorstore's zarr3 driver (a second writer)
  tests/fixtures/handmade.zarr/      what no writer produces yet: rectilinear grids, r* raw types
                                     (written here byte by byte, following the specs)
  tests/fixtures/v3.expected.json    per array: store, path, dtype, shape, chunks, fill value, attrs,
                                     writer and data file
  tests/fixtures/v3.expected/*.bin   each array's values, little endian, C order (bool as 0/1 bytes,
                                     complex as (re, im) pairs, raw as bytes)
  tests/fixtures/bad.zarr/           corrupt or unsupported variants, each derived from a real array
  bench/data/bench.zarr/             2048x2048 uint16 images for `npm run bench`
Everything is seeded, so values are the same on every run (gzip headers carry a timestamp, so
compressed bytes may differ).
"""
import base64
import gzip
from numcodecs import blosc
import json
import math
import shutil
from pathlib import Path

import numpy as np
import tensorstore as ts
from importlib.metadata import version as package_version

TENSORSTORE = f"tensorstore {package_version('tensorstore')}"
import zarr
from zarr.codecs import BytesCodec, Crc32cCodec, GzipCodec, TransposeCodec

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
RNG = np.random.default_rng(20261122)


def fill_json(value, dtype):
    """The fill value in the form zarr.json uses, for the expected-values manifest."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if dtype.kind == "c":
        return [fill_json(value.real, np.dtype("f8")), fill_json(value.imag, np.dtype("f8"))]
    if dtype.kind == "V":
        return list(bytes(value))
    if dtype.kind == "f":
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return float(value)
    if dtype.kind == "b":
        return bool(value)
    if dtype.itemsize == 8:
        return str(int(value))  # JSON numbers lose 64-bit precision in JavaScript
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
    elif dtype.kind == "c":
        data = (RNG.standard_normal(n) * 1e3 + 1j * RNG.standard_normal(n) * 1e3).astype(dtype)
        data[:3] = [complex(np.nan, 1), complex(np.inf, -np.inf), complex(-0.0, 0.5)]
    else:
        data = (RNG.standard_normal(n) * (10 if dtype.itemsize == 2 else 1e3)).astype(dtype)
        data[:4] = [np.nan, np.inf, -np.inf, -0.0]
    return data.reshape(shape)


def expected_bytes(data):
    """Values as the manifest stores them: little endian, C order."""
    out = np.ascontiguousarray(data)
    if out.dtype.kind == "O":
        # Variable-length items in numcodecs' vlen layout: u32 count, then u32 length + bytes each.
        items = [v.encode() if isinstance(v, str) else bytes(v) for v in out.reshape(-1)]
        return len(items).to_bytes(4, "little") + b"".join(len(v).to_bytes(4, "little") + v for v in items)
    if out.dtype.kind == "b":
        return out.astype(np.uint8).tobytes()
    if out.dtype.kind == "V":
        return out.tobytes()
    return out.astype(out.dtype.newbyteorder("<")).tobytes()


EXPECTED = []
EXPECTED_FILES = {}


def record(store, name, data, chunks, fill_value, writer, attrs=None, dimension_names=None, dtype_name=None):
    """Writes the expected values of one array and adds it to the manifest."""
    file = f"{store.removesuffix('.zarr')}__{name.replace('/', '__')}.bin"
    values = expected_bytes(data)
    # Arrays written from the same values (one image under many codecs) share one file.
    file = EXPECTED_FILES.setdefault((data.dtype.str, data.shape, values), file)
    (FIXTURES / "v3.expected").mkdir(exist_ok=True)
    (FIXTURES / "v3.expected" / file).write_bytes(values)
    EXPECTED.append({
        "store": store, "path": name, "writer": writer, "dtype": dtype_name or data.dtype.name,
        "shape": list(data.shape), "chunks": list(chunks) if chunks is not None else None,
        "fill_value": fill_json(fill_value, data.dtype), "data": f"v3.expected/{file}",
        "attrs": attrs or {}, "dimension_names": dimension_names,
    })


class Writer:
    """Writes arrays into one zarr-python v3 hierarchy and records them."""

    def __init__(self, store, attributes):
        self.store = store
        self.path = FIXTURES / store
        shutil.rmtree(self.path, ignore_errors=True)
        self.root = zarr.open_group(self.path, mode="w", zarr_format=3, attributes=attributes)

    def array(self, name, data, chunks, fill_value=0, compressors=None, serializer="auto", write=None, lossy=False,
              dtype=None, dtype_name=None, **kw):
        arr = self.root.create_array(name, shape=data.shape, chunks=chunks, dtype=dtype or data.dtype,
                                     fill_value=fill_value, compressors=compressors, serializer=serializer, **kw)
        if lossy:
            # A lossy filter: what zarr-python reads back is what a reader must produce.
            arr[...] = data
            data = arr[...]
        elif write is None:
            arr[...] = data
        else:
            # Only some regions are written: the rest of the chunks never exist in the store.
            expected = np.full(data.shape, fill_value, dtype=data.dtype)
            if data.dtype.kind == "O":
                expected = np.empty(data.shape, dtype=object)
                expected.fill(fill_value)
            for region in write:
                arr[region] = data[region]
                expected[region] = data[region]
            data = expected
        assert np.array_equal(arr[...], data, equal_nan=data.dtype.kind != "O"), name
        names = arr.metadata.dimension_names
        # The chunk grid's shape as stored (with `shards=`, the shard shape).
        chunks = tuple(arr.metadata.chunk_grid.chunk_shape)
        record(self.store, name, data, chunks, fill_value, f"zarr-python {zarr.__version__}",
               attrs=dict(arr.attrs), dimension_names=list(names) if names else None, dtype_name=dtype_name)
        return arr


def write_v3():
    shutil.rmtree(FIXTURES / "v3.expected", ignore_errors=True)
    w = Writer("v3.zarr", {"title": "zarr-wasm v3 fixtures", "writer": f"zarr-python {zarr.__version__}"})
    w.root.create_group("dtypes", attributes={"about": "every core numeric type, gzip, edge chunks"})
    for name in ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float16", "float32", "float64", "complex64", "complex128"]:
        dtype = np.dtype(name)
        fill = False if name == "bool" else 0
        w.array(f"dtypes/{name}", values_for(dtype, (13, 11)), (5, 4), fill_value=fill, compressors=[GzipCodec(level=1)])
    w.root.create_group("big_endian")
    for name in ["uint16", "int32", "float64", "int64", "float16", "complex64", "complex128"]:
        w.array(f"big_endian/{name}", values_for(np.dtype(name), (9, 7)), (4, 4), serializer=BytesCodec(endian="big"))
    w.root.create_group("layouts")
    w.array("layouts/d3", values_for(np.dtype("int32"), (7, 6, 5)), (3, 4, 2), compressors=[GzipCodec(level=5)])
    w.array("layouts/d1", values_for(np.dtype("float32"), (100,)), (16,))
    w.array("layouts/scalar", np.array(7, dtype="int32"), ())
    w.array("layouts/empty_rows", np.zeros((0, 5), dtype="int16"), (2, 2))
    w.array("layouts/empty_cols", np.zeros((3, 0, 2), dtype="float32"), (2, 2, 2), fill_value=1.5)
    w.array("layouts/dot_separator", values_for(np.dtype("uint8"), (10, 10)), (3, 3),
            chunk_key_encoding={"name": "default", "separator": "."})
    w.array("layouts/v2_keys", values_for(np.dtype("uint8"), (10, 10)), (3, 3),
            chunk_key_encoding={"name": "v2", "separator": "."})
    w.array("layouts/v2_keys_slash", values_for(np.dtype("uint8"), (10, 10)), (3, 3),
            chunk_key_encoding={"name": "v2", "separator": "/"})
    w.array("layouts/named", values_for(np.dtype("int16"), (6, 8)), (3, 3), dimension_names=["y", "x"],
            attributes={"units": "counts", "scale": [0.5, 0.25]})
    w.array("layouts/many_chunks", values_for(np.dtype("uint8"), (64, 64)), (4, 4), compressors=[GzipCodec(level=1)])
    w.root.create_group("codecs")
    w.array("codecs/transpose_2d", values_for(np.dtype("uint16"), (9, 14)), (4, 5), filters=[TransposeCodec(order=[1, 0])],
            compressors=[GzipCodec(level=1)])
    w.array("codecs/transpose_3d", values_for(np.dtype("float64"), (5, 6, 7)), (3, 4, 5),
            filters=[TransposeCodec(order=[2, 0, 1])], serializer=BytesCodec(endian="big"))
    w.array("codecs/crc32c", values_for(np.dtype("int32"), (10, 10)), (4, 4), compressors=[Crc32cCodec()])
    w.array("codecs/gzip_crc32c", values_for(np.dtype("complex64"), (10, 10)), (4, 4),
            filters=[TransposeCodec(order=[1, 0])], compressors=[GzipCodec(level=3), Crc32cCodec()])
    w.root.create_group("sparse")
    w.array("sparse/nan_fill", values_for(np.dtype("float64"), (40, 40)), (10, 10), fill_value=float("nan"),
            write=[np.s_[0:10, 0:10], np.s_[25:33, 12:18]])
    w.array("sparse/int_fill", values_for(np.dtype("int16"), (40, 40)), (10, 10), fill_value=42,
            compressors=[GzipCodec(level=1)], write=[np.s_[5:15, 30:40]])
    w.array("sparse/complex_fill", values_for(np.dtype("complex128"), (20, 20)), (10, 10), fill_value=complex(1.5, -2),
            write=[np.s_[0:5, 0:5]])
    w.array("sparse/float16_nan", values_for(np.dtype("float16"), (20, 20)), (10, 10), fill_value=float("nan"),
            write=[np.s_[12:20, 0:3]])
    w.array("sparse/uint64_max", values_for(np.dtype("uint64"), (20, 20)), (10, 10), fill_value=np.iinfo("uint64").max,
            write=[np.s_[0:2, 0:2]])
    w.root.create_group("nested").create_group("deeper", attributes={"depth": 2})
    w.array("nested/deeper/leaf", values_for(np.dtype("uint16"), (5, 5)), (5, 5))


def smooth(dtype, shape, seed):
    """Compressible values, like real images: a gradient, a few blobs and a little noise."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    t = np.linspace(0, 6 * np.pi, n)
    wave = np.sin(t) * 0.4 + np.sin(t * 0.05) * 0.4 + rng.normal(0, 0.001, n)
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        span = min(float(info.max) - float(info.min), 60000.0)
        mid = (float(info.max) + float(info.min)) / 2
        return (mid + wave * span / 2).astype(dtype).reshape(shape)
    if dtype.kind == "c":
        return (wave * 100 + 1j * wave[::-1] * 50).astype(dtype).reshape(shape)
    return (wave * 1000).astype(dtype).reshape(shape)


def chunk_files(array_dir):
    return sorted(p for p in (array_dir / "c").rglob("*") if p.is_file())


def blosc_header(chunk):
    """(typesize, nbytes, blocksize, flags) of a Blosc chunk, to check what the C library wrote."""
    return chunk[3], int.from_bytes(chunk[4:8], "little"), int.from_bytes(chunk[8:12], "little"), chunk[2]


def write_codecs():
    """Every compressor and filter real data uses, written by numcodecs' C libraries (c-blosc 1.21
    with its bundled lz4, zlib and zstd; libzstd; liblz4; zlib) through zarr-python, plus chunks
    re-encoded by the C libraries in forms zarr-python does not choose (zstd frames without a
    content size, several frames, several gzip members)."""
    import zstandard
    from zarr.codecs import BloscCodec, ZstdCodec
    from zarr.codecs import numcodecs as nc

    w = Writer("codecs.zarr", {"about": "compressors and filters, written by the C libraries"})
    image = synthetic_image(400, 11)[:260]
    flags_seen = set()

    def check_blosc(name, typesize=None, nblocks_min=1):
        for f in chunk_files(w.path / name):
            ts, nbytes, blocksize, flags = blosc_header(f.read_bytes())
            if typesize is not None:
                assert ts == typesize, (name, ts)
            flags_seen.add(flags)
            assert nbytes == 0 or -(-nbytes // blocksize) >= nblocks_min, (name, nbytes, blocksize)

    w.root.create_group("blosc", attributes={"about": "c-blosc 1.21 via numcodecs: every compressor and shuffle"})
    # 170x400 uint16 chunks are 136000 bytes. At clevel 1 c-blosc picks 64 KiB blocks (32 KiB for
    # zstd): full blocks split into per-byte streams (except zstd) and a short last block.
    for cname in ["blosclz", "lz4", "lz4hc", "zlib", "zstd"]:
        for shuffle in ["noshuffle", "shuffle", "bitshuffle"]:
            name = f"blosc/{cname}_{shuffle}"
            w.array(name, image, (170, 400), compressors=[BloscCodec(cname=cname, clevel=1, shuffle=shuffle)])
            check_blosc(name, typesize=2, nblocks_min=3)
    # Higher levels: c-blosc's larger default blocks over float32 chunks.
    big = smooth("float32", (256, 256), 12)
    for cname in ["lz4", "zstd", "blosclz", "zlib"]:
        w.array(f"blosc/{cname}_clevel9", big, (128, 256), compressors=[BloscCodec(cname=cname, clevel=9, shuffle="shuffle")])
    w.array("blosc/bitshuffle_float64", smooth("float64", (64, 64), 13), (32, 40),
            compressors=[BloscCodec(cname="lz4", clevel=7, shuffle="bitshuffle")])
    # Odd type sizes: the header's typesize is what counts, not the array's (uint8 here). At clevel
    # 1 the blocks are 64 KiB rounded down to whole elements, so neither the blocks nor the last
    # one hold a multiple of 8 elements, and each has trailing bytes; 17 and 24 are never split.
    odd = smooth("uint8", (300001,), 14)
    for ts in [3, 5, 7, 17, 24]:
        for shuffle in ["shuffle", "bitshuffle"]:
            name = f"blosc/typesize{ts}_{shuffle}"
            w.array(name, odd, (150001,), compressors=[BloscCodec(cname="lz4", clevel=1, shuffle=shuffle, typesize=ts)])
            check_blosc(name, typesize=ts, nblocks_min=2)
    # One block of 8000 three-byte elements and a trailing byte: bit-shuffled, tail copied.
    w.array("blosc/typesize3_bitshuffle_whole", odd[:48002], (24001,),
            compressors=[BloscCodec(cname="zstd", clevel=5, shuffle="bitshuffle", typesize=3)])
    # 999 uint16 in one block: not a multiple of 8 elements, so c-blosc stored it unshuffled.
    w.array("blosc/bitshuffle_999", smooth("uint16", (999 * 3,), 15), (999,),
            compressors=[BloscCodec(cname="zstd", clevel=3, shuffle="bitshuffle")])
    # complex128: typesize 16, the largest that is split.
    w.array("blosc/complex128_shuffle", smooth("complex128", (100, 100), 17), (64, 64),
            compressors=[BloscCodec(cname="lz4", clevel=1, shuffle="shuffle")])
    # Stored without compression: clevel 0, and incompressible data.
    w.array("blosc/clevel0", image[:50, :60], (48, 40), compressors=[BloscCodec(cname="lz4", clevel=0, shuffle="shuffle")])
    w.array("blosc/incompressible", values_for(np.dtype("uint8"), (64,)), (64,),
            compressors=[BloscCodec(cname="zstd", clevel=9, shuffle="noshuffle")])
    w.array("blosc/sparse", image, (170, 400), fill_value=7, write=[np.s_[0:170, 0:400]],
            compressors=[BloscCodec(cname="lz4hc", clevel=9, shuffle="shuffle")])
    assert any(f & 0x02 for f in flags_seen), "no memcpyed chunk was written"
    assert any(f & 0x10 for f in flags_seen) and any(not f & 0x10 for f in flags_seen), "split and unsplit blocks"

    w.root.create_group("zstd")
    w.array("zstd/level3", image, (100, 160), compressors=[ZstdCodec(level=3)])
    w.array("zstd/checksum", image, (100, 160), compressors=[ZstdCodec(level=19, checksum=True)])
    w.array("zstd/numcodecs", image, (100, 160), compressors=[nc.Zstd(level=1)])
    # Re-encoded by libzstd (python-zstandard): frames without a content size; several frames
    # (with checksums) one after another, preceded by a skippable frame.
    for name, mode in [("zstd/no_content_size", "streamed"), ("zstd/multi_frame", "frames")]:
        w.array(name, image, (100, 160), compressors=[ZstdCodec(level=3)])
        for f in chunk_files(w.path / name):
            raw = zstandard.ZstdDecompressor().decompress(f.read_bytes())
            if mode == "streamed":
                enc = zstandard.ZstdCompressor(level=3, write_content_size=False).compress(raw)
                assert zstandard.get_frame_parameters(enc).content_size == zstandard.CONTENTSIZE_UNKNOWN
            else:
                third = len(raw) // 3
                c = zstandard.ZstdCompressor(level=5, write_checksum=True)
                skippable = (0x184D2A50).to_bytes(4, "little") + (3).to_bytes(4, "little") + b"zw!"
                enc = skippable + b"".join(c.compress(part) for part in [raw[:third], raw[third:2 * third], raw[2 * third:]])
            f.write_bytes(enc)

    w.root.create_group("numcodecs", attributes={"about": "numcodecs' codecs under their v3 names"})
    w.array("numcodecs/lz4", image, (100, 160), compressors=[nc.LZ4(acceleration=1)])
    w.array("numcodecs/zlib", image, (100, 160), compressors=[nc.Zlib(level=6)])
    w.array("numcodecs/gzip", image, (100, 160), compressors=[nc.GZip(level=6)])
    w.array("numcodecs/gzip_multi_member", image, (100, 160), compressors=[nc.GZip(level=6)])
    for f in chunk_files(w.path / "numcodecs/gzip_multi_member"):
        raw = gzip.decompress(f.read_bytes())
        half = len(raw) // 2
        f.write_bytes(gzip.compress(raw[:half], mtime=0) + gzip.compress(raw[half:], mtime=0))
    w.array("numcodecs/shuffle_zlib", smooth("float32", (60, 50), 18), (30, 25),
            compressors=[nc.Shuffle(elementsize=4), nc.Zlib(level=1)])
    w.array("numcodecs/delta", (np.cumsum(RNG.integers(-5, 6, 4000)) + 100000).astype("int32").reshape(40, 100), (16, 64),
            filters=[nc.Delta(dtype="<i4")], compressors=[BloscCodec(cname="lz4", clevel=5, shuffle="shuffle")])
    w.array("numcodecs/delta_astype", (np.cumsum(RNG.integers(-50, 51, 3000)) + 7).astype("int64"), (1000,),
            filters=[nc.Delta(dtype="<i8", astype="<i2")], compressors=[nc.Zstd(level=1)])
    w.array("numcodecs/delta_uint8_wraps", values_for(np.dtype("uint8"), (500,)), (128,), filters=[nc.Delta(dtype="|u1")])
    w.array("numcodecs/fixedscaleoffset", smooth("float64", (50, 40), 19) / 10 + 15, (20, 20), lossy=True,
            filters=[nc.FixedScaleOffset(offset=15, scale=100, dtype="<f8", astype="<i2")], compressors=[nc.Zlib(level=1)])
    w.array("numcodecs/bitround", smooth("float32", (50, 40), 20), (20, 20), lossy=True,
            filters=[nc.BitRound(keepbits=6)], compressors=[BloscCodec(cname="zstd", clevel=3, shuffle="bitshuffle")])
    w.array("numcodecs/quantize", smooth("float64", (50, 40), 21), (20, 20), lossy=True,
            filters=[nc.Quantize(digits=2, dtype="<f8")], compressors=[nc.Zlib(level=1)])
    w.array("numcodecs/astype", smooth("float64", (30, 30), 22), (16, 16), lossy=True,
            filters=[nc.AsType(encode_dtype="<f4", decode_dtype="<f8")])
    w.array("numcodecs/crc32", image, (100, 160), compressors=[nc.CRC32()])
    w.array("numcodecs/crc32c", image, (100, 160), compressors=[nc.Zlib(level=1), nc.CRC32C()])
    w.array("numcodecs/adler32", image, (100, 160), compressors=[nc.Adler32(location="end")])
    w.array("numcodecs/fletcher32", image, (100, 160), compressors=[nc.Zlib(level=1), nc.Fletcher32()])
    w.array("numcodecs/jenkins_lookup3", image, (100, 160), compressors=[nc.JenkinsLookup3(initval=7)])
    # Its own random stream, so that the arrays after it keep their values.
    flags = np.random.default_rng(31).integers(0, 2, (37, 29)).astype(bool)
    w.array("numcodecs/packbits", flags, (16, 16), filters=[nc.PackBits()], compressors=[nc.Zstd(level=1)])
    write_blosc_snappy(w)
    write_sharded(w)

    w.root.create_group("vlen", attributes={"about": "variable-length strings and bytes"})
    words = ["", "a", "zarr", "héllo wörld", "日本語のテキスト", "emoji 😀🎉", "tab\tnewline\n", "x" * 300, "\u0000nul"]
    strings = np.array([words[i % len(words)] + (str(i) if i % 4 else "") for i in range(50)], dtype=object)
    w.array("vlen/utf8", strings, (16,), dtype=str, dtype_name="string", fill_value="", compressors=[ZstdCodec(level=3)])
    grid = np.array([f"r{i}c{j}" * (1 + (i * j) % 3) for i in range(7) for j in range(9)], dtype=object).reshape(7, 9)
    w.array("vlen/utf8_2d_sparse", grid, (3, 4), dtype=str, dtype_name="string", fill_value="∅",
            compressors=[BloscCodec(cname="lz4", clevel=5, shuffle="noshuffle")], write=[np.s_[0:3, 0:4], np.s_[4:7, 5:9]])
    blobs = np.empty(20, dtype=object)
    for i in range(20):
        blobs[i] = bytes(RNG.integers(0, 256, i % 7, dtype=np.uint8)) + b"\x00" * (i % 3)
    w.array("vlen/bytes", blobs, (6,), dtype=zarr.core.dtype.VariableLengthBytes(), dtype_name="variable_length_bytes",
            fill_value=b"", compressors=None)
    w.array("vlen/bytes_sparse", blobs, (6,), dtype=zarr.core.dtype.VariableLengthBytes(),
            dtype_name="variable_length_bytes", fill_value=b"\xff\x00fill", compressors=[nc.Zlib(level=1)],
            write=[np.s_[6:12]])
    # Sharded variable-length data (as zarr-vectors packs its cells for object stores): strings in
    # shards of 2 x 3 inner chunks with some inner chunks and a shard never written, and bytes with
    # the index first. (Transposed vlen inner chunks are left out: zarr-python 3.1.6 does not read
    # its own back.)
    from zarr.codecs import ShardingCodec, VLenBytesCodec, VLenUTF8Codec
    w.array("vlen/utf8_sharded", grid, (4, 6), dtype=str, dtype_name="string", fill_value="∅",
            serializer=ShardingCodec(chunk_shape=(2, 3), codecs=[VLenUTF8Codec(), ZstdCodec(level=3)]),
            write=[np.s_[0:2, 0:6], np.s_[2:4, 3:6], np.s_[4:7, 0:3]])
    blob_grid = np.empty((6, 8), dtype=object)
    for i in range(6):
        for j in range(8):
            blob_grid[i, j] = bytes([i, j]) * ((i + j) % 4)
    w.array("vlen/bytes_sharded", blob_grid, (6, 8), dtype=zarr.core.dtype.VariableLengthBytes(),
            dtype_name="variable_length_bytes", fill_value=b"",
            serializer=ShardingCodec(chunk_shape=(3, 4), codecs=[VLenBytesCodec()], index_location="start"))


def write_sharded(w):
    """Sharded arrays (sharding_indexed) written by zarr-python: index at the end and at the start,
    edge shards, empty inner chunks and missing shards, nested shards, transposed inner chunks."""
    from zarr.codecs import BloscCodec, ShardingCodec, ZstdCodec
    w.root.create_group("sharding", attributes={"about": "sharding_indexed"})
    image = synthetic_image(64, 21)[:50, :60]
    w.array("sharding/index_end", image, (32, 32), shards=None,
            serializer=ShardingCodec(chunk_shape=(8, 8), codecs=[BytesCodec(), ZstdCodec(level=3)]))
    w.array("sharding/index_start", image, (32, 32),
            serializer=ShardingCodec(chunk_shape=(8, 16), codecs=[BytesCodec(), GzipCodec(level=1)], index_location="start"))
    w.array("sharding/sparse", image, (32, 32), fill_value=7, write=[np.s_[3:9, 40:47], np.s_[33:34, 0:60]],
            serializer=ShardingCodec(chunk_shape=(8, 8), codecs=[BytesCodec(), ZstdCodec(level=1)]))
    w.array("sharding/nested", values_for(np.dtype("int32"), (40, 40)), (32, 32),
            serializer=ShardingCodec(chunk_shape=(16, 16), codecs=[
                ShardingCodec(chunk_shape=(4, 8), codecs=[BytesCodec(), BloscCodec(cname="lz4", clevel=5, shuffle="shuffle")])]))
    w.array("sharding/transposed_inner", values_for(np.dtype("float64"), (20, 24)), (10, 12),
            serializer=ShardingCodec(chunk_shape=(5, 4), codecs=[TransposeCodec(order=[1, 0]), BytesCodec(endian="big"), Crc32cCodec()],
                                     index_codecs=[BytesCodec(endian="big"), Crc32cCodec()]))
    w.array("sharding/shards_param", synthetic_image(128, 22), (16, 16), shards=(64, 64), compressors=[ZstdCodec(level=3)])
    # A transpose before the sharding codec: the shards are stored with their axes permuted, and
    # the inner chunk shape is in that order (zarr-python checks it against both orders, so the
    # shapes are chosen to divide either way). tensorstore reads each back as a second opinion.
    w.array("sharding/transpose_outside", values_for(np.dtype("uint16"), (50, 44)), (20, 20),
            filters=[TransposeCodec(order=[1, 0])],
            serializer=ShardingCodec(chunk_shape=(4, 10), codecs=[BytesCodec(), ZstdCodec(level=1)]))
    w.array("sharding/transpose_outside_3d", values_for(np.dtype("float32"), (12, 10, 9)), (8, 8, 8), fill_value=-1.5,
            write=[np.s_[0:5, 2:9, 1:8], np.s_[9:12, :, :]], filters=[TransposeCodec(order=[2, 0, 1])],
            serializer=ShardingCodec(chunk_shape=(2, 4, 4), codecs=[BytesCodec(endian="big"), GzipCodec(level=1)],
                                     index_location="start"))
    for name in ["sharding/transpose_outside", "sharding/transpose_outside_3d"]:
        read = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(w.path / name)}}).result().read().result()
        assert np.array_equal(read, w.root[name][...]), name


def write_blosc_snappy(w):
    """Blosc chunks with the snappy compressor. numcodecs' c-blosc is built without snappy, so the
    chunks are assembled here following c-blosc's layout, with every stream compressed by
    libsnappy (Debian's python3-snappy, a C++ library; run with the system Python)."""
    import subprocess
    from zarr.codecs import BloscCodec
    name = "blosc/snappy_shuffle"
    data = smooth("uint16", (50, 60), 23)
    arr = w.root.create_array(name, shape=data.shape, chunks=(25, 40), dtype=data.dtype,
                              compressors=[BloscCodec(cname="lz4", clevel=5, shuffle="shuffle", blocksize=1000)])
    arr[...] = data
    meta_path = w.path / name / "zarr.json"
    meta = json.loads(meta_path.read_text())
    for codec in meta["codecs"]:
        if codec["name"] == "blosc":
            codec["configuration"]["cname"] = "snappy"
    meta_path.write_text(json.dumps(meta, indent=2))
    snappy = "import sys, snappy; d = sys.stdin.buffer.read(); sys.stdout.buffer.write(snappy.compress(d))"
    compress = lambda b: subprocess.run(["/usr/bin/python3", "-c", snappy], input=b, capture_output=True, check=True).stdout
    for f in chunk_files(w.path / name):
        raw = blosc.decompress(f.read_bytes())  # c-blosc's own lz4 chunk, decoded by c-blosc
        typesize, blocksize = 2, 1000
        blocks = [raw[i:i + blocksize] for i in range(0, len(raw), blocksize)]
        body, starts = b"", []
        table_end = 16 + 4 * len(blocks)
        for block in blocks:
            arr_u8 = np.frombuffer(block, np.uint8)
            n = len(block) // typesize
            shuffled = arr_u8[:n * typesize].reshape(n, typesize).T.tobytes() + block[n * typesize:]
            leftover = len(block) < blocksize
            streams = [shuffled[j * n:(j + 1) * n] for j in range(typesize)] if not leftover and blocksize // typesize >= 128 else [shuffled]
            starts.append(table_end + len(body))
            for s in streams:
                c = compress(s)
                c = s if len(c) >= len(s) else c
                body += len(c).to_bytes(4, "little") + c
        flags = 0x01 | (2 << 5)
        header = bytes([2, 1, flags, typesize]) + len(raw).to_bytes(4, "little") + blocksize.to_bytes(4, "little")
        chunk = header + (table_end + len(body)).to_bytes(4, "little") + b"".join(s.to_bytes(4, "little") for s in starts) + body
        f.write_bytes(chunk)
    record(w.store, name, data, (25, 40), 0, "libsnappy streams in a Blosc chunk assembled by scripts/make_fixtures.py")


def write_consolidated():
    w = Writer("consolidated.zarr", {"consolidated": True})
    w.root.create_group("images", attributes={"kind": "images"})
    w.array("images/raw", values_for(np.dtype("uint16"), (16, 16)), (8, 8), compressors=[GzipCodec(level=1)])
    w.array("images/labels", values_for(np.dtype("uint8"), (16, 16)), (8, 8))
    w.root.create_group("images/more").create_group("deep")
    w.array("table", values_for(np.dtype("float32"), (10,)), (5,), attributes={"column": "x"})
    zarr.consolidate_metadata(w.path)


def write_tensorstore():
    """A second writer: tensorstore's zarr3 driver (its own C++ codecs)."""
    store = "tensorstore.zarr"
    root = FIXTURES / store
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    (root / "zarr.json").write_text(json.dumps({"zarr_format": 3, "node_type": "group", "attributes": {"writer": TENSORSTORE}}))
    arrays = [
        ("uint16_gzip", "uint16", (30, 20), (8, 8), [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip", "configuration": {"level": 6}}], None),
        ("int32_transposed_big", "int32", (6, 7, 8), (4, 4, 4), [{"name": "transpose", "configuration": {"order": [2, 1, 0]}}, {"name": "bytes", "configuration": {"endian": "big"}}, {"name": "gzip", "configuration": {"level": 1}}], None),
        ("float64_crc32c", "float64", (12, 12), (5, 5), [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}], None),
        ("bool_v2_keys", "bool", (9, 9), (4, 4), [{"name": "bytes"}], {"name": "v2", "configuration": {"separator": "."}}),
        ("complex128", "complex128", (7, 5), (3, 3), [{"name": "bytes", "configuration": {"endian": "little"}}], None),
        ("float16", "float16", (7, 5), (3, 3), [{"name": "bytes", "configuration": {"endian": "big"}}], None),
        ("int8_sparse", "int8", (20, 20), (5, 5), [{"name": "bytes"}], None),
        ("uint16_sharded_start", "uint16", (30, 20), (16, 16), [{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [4, 8], "index_location": "start",
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 3}}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}], None),
    ]
    for name, dtype, shape, chunks, codecs, key_encoding in arrays:
        metadata = {"shape": list(shape), "data_type": dtype, "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(chunks)}},
                    "codecs": codecs}
        if key_encoding:
            metadata["chunk_key_encoding"] = key_encoding
        fill = 0
        if name == "int8_sparse":
            metadata["fill_value"] = fill = -7
        arr = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(root / name)}, "metadata": metadata},
                      create=True, delete_existing=True).result()
        data = values_for(np.dtype(dtype), shape)
        if name == "int8_sparse":
            expected = np.full(shape, fill, dtype=dtype)
            expected[3:8, 11:14] = data[3:8, 11:14]
            arr[3:8, 11:14].write(data[3:8, 11:14]).result()
            data = expected
        else:
            arr.write(data).result()
        assert np.array_equal(arr.read().result(), data, equal_nan=True)
        record(store, name, data, chunks, np.zeros((), dtype=dtype)[()] if fill == 0 else fill, TENSORSTORE)


def write_ml_types():
    """The narrow number types of machine learning (the zarr-extensions registry), in
    ml_types.zarr. tensorstore writes the ones it has (and reads them back); the others, which no
    writer has yet, are written here byte by byte as the registry lays them out (one byte per
    value, bfloat16 in two), with ml_dtypes giving the values. Each holds every bit pattern of its
    type (bfloat16: all 65,536), a missing chunk or shard over a fill value, and is recorded as
    the float32 (int8, uint8) values ml_dtypes converts it to."""
    import ml_dtypes
    store = "ml_types.zarr"
    root = FIXTURES / store
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    (root / "zarr.json").write_text(json.dumps({"zarr_format": 3, "node_type": "group", "attributes": {"writer": "tensorstore, ml_dtypes"}}))
    ml_version = f"ml_dtypes {ml_dtypes.__version__}"

    def patterns(dtype):
        bits = {"bfloat16": 16}.get(dtype.name, 8)
        codes = np.arange(2 ** bits, dtype=np.uint16 if bits == 16 else np.uint8)
        if dtype.name in ("float4_e2m1fn", "int4", "uint4"):
            codes = codes[:16]
        elif dtype.name in ("float6_e2m3fn", "float6_e3m2fn"):
            codes = codes[:64]
        elif dtype.name in ("int2", "uint2"):
            codes = codes[:4]
        return codes.view(dtype)

    def widened(values):
        return values.astype(np.int8 if values.dtype.name.startswith("int") else np.uint8 if values.dtype.name.startswith("uint") else np.float32)

    def fill_for(dtype):
        return {"int4": -3, "int2": -1, "uint4": 9, "uint2": 2}.get(dtype.name, 1.5 if dtype.name != "float8_e8m0fnu" else 0.25)

    # tensorstore: every pattern, in two chunks per row of 8 and one chunk (the last) never
    # written; sharded for float8_e4m3fn; big endian for bfloat16.
    for name in ["bfloat16", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e4m3b11fnuz", "float8_e5m2",
                 "float8_e5m2fnuz", "float8_e3m4", "float8_e8m0fnu", "float4_e2m1fn", "int4", "int2"]:
        dtype = np.dtype(getattr(ml_dtypes, name))
        values = patterns(dtype)
        n = len(values)
        shape, chunks = (-(-n // 8) + 1, 8), (max(1, n // 64), 8)
        data = np.full(shape, fill_for(dtype), dtype=dtype)
        data.reshape(-1)[:n] = values
        codecs = [{"name": "bytes", "configuration": {"endian": "big" if name == "bfloat16" else "little"}}, {"name": "zstd", "configuration": {"level": 1}}]
        grid = chunks
        if name == "float8_e4m3fn":
            codecs = [{"name": "sharding_indexed", "configuration": {"chunk_shape": list(chunks), "codecs": codecs,
                                                                     "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}]
            grid = (chunks[0] * 4, 8)
        metadata = {"shape": list(shape), "data_type": name, "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(grid)}},
                    "codecs": codecs, "fill_value": fill_for(dtype)}
        if name == "float8_e8m0fnu":
            # tensorstore 0.1.86 converts e8m0 fill values between JSON numbers and patterns with a
            # bias of 63, not the registry's 127 (0.25 given becomes pattern 61; pattern 125 is
            # written back as 2^62): given as hex, and put back as hex in zarr.json below.
            metadata["fill_value"] = "0x7d"
        arr = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(root / name)}, "metadata": metadata},
                      create=True, delete_existing=True).result()
        # The last row is left to the fill value (its chunk or shard is never written).
        arr[:shape[0] - 1].write(data[:shape[0] - 1]).result()
        data[shape[0] - 1:] = fill_for(dtype)
        assert widened(arr.read().result()).tobytes() == widened(data).tobytes(), name
        if name == "float8_e8m0fnu":
            meta_path = root / name / "zarr.json"
            meta = json.loads(meta_path.read_text())
            meta["fill_value"] = "0x7d"
            meta_path.write_text(json.dumps(meta))
        record(store, name, widened(data), grid, widened(np.array(fill_for(dtype), dtype))[()], f"{TENSORSTORE} ({ml_version} values)", dtype_name=name)

    # By hand: the registry's types tensorstore does not write.
    def by_hand(name, values):
        """`values`: one per element, or (complex types) pairs of (real, imaginary); after them, a
        last chunk of 5 elements that is never written (the fill value)."""
        pair = values.ndim == 2
        fill = fill_for(values.dtype)
        written = -(-values.shape[0] // 16)
        n = 16 * written + 5
        element_fill = np.full(values.shape[1:], fill, values.dtype)
        full = np.concatenate([values, np.broadcast_to(element_fill, (n - values.shape[0],) + values.shape[1:])])
        meta = {"zarr_format": 3, "node_type": "array", "shape": [n], "data_type": name,
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [16]}},
                "chunk_key_encoding": {"name": "default"}, "fill_value": [fill, fill] if pair else fill,
                "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip", "configuration": {"level": 1}}],
                "attributes": {}}
        (root / name).mkdir()
        (root / name / "zarr.json").write_text(json.dumps(meta, indent=1))
        for c in range(written):
            write_chunk(root / name, f"c/{c}", full[16 * c:16 * c + 16].astype(values.dtype.newbyteorder("<")).tobytes(), True)
        expected = widened(full)
        if pair:
            expected = np.ascontiguousarray(expected).view(np.complex64).reshape(n)
            fill_value = np.complex64(complex(fill, fill))
        else:
            fill_value = widened(np.array(fill, values.dtype))[()]
        record(store, name, expected, (16,), fill_value, f"scripts/make_fixtures.py (by hand; {ml_version} values)", dtype_name=name)

    for name in ["float8_e4m3", "float6_e2m3fn", "float6_e3m2fn", "uint4", "uint2"]:
        by_hand(name, patterns(np.dtype(getattr(ml_dtypes, name))))
    # complex_<float>: two values per element, real then imaginary; recorded as interleaved float32.
    for part in ["float8_e4m3fn", "bfloat16"]:
        dtype = np.dtype(getattr(ml_dtypes, part))
        values = RNG.standard_normal(2 * 40).astype(np.float32).astype(dtype)
        values[:4] = np.array([0.0, -0.0, 1.5, -448.0 if part != "bfloat16" else 1e30], np.float32).astype(dtype)
        by_hand(f"complex_{part}", values.reshape(40, 2))


def write_chunk(path, key, raw, compress):
    path = path / key
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(raw, mtime=0) if compress else raw)


def write_handmade():
    """Arrays no writer produces yet, written byte by byte from the specs: rectilinear chunk grids
    (the spec's example forms, overflow chunks, a missing chunk) and r* raw data types."""
    store = "handmade.zarr"
    root = FIXTURES / store
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    (root / "zarr.json").write_text(json.dumps({"zarr_format": 3, "node_type": "group", "attributes": {"writer": "scripts/make_fixtures.py"}}))

    def rectilinear(name, dtype, shape, chunk_shapes, edges, fill, compress, missing=()):
        data = values_for(np.dtype(dtype), shape)
        meta = {"zarr_format": 3, "node_type": "array", "shape": list(shape), "data_type": dtype,
                "chunk_grid": {"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": chunk_shapes}},
                "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
                "fill_value": fill_json(np.array(fill, dtype)[()], np.dtype(dtype)),
                "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}] + ([{"name": "gzip", "configuration": {"level": 1}}] if compress else []),
                "attributes": {"edges": edges}}
        (root / name).mkdir()
        (root / name / "zarr.json").write_text(json.dumps(meta, indent=1))
        expected = data.copy()
        starts = [np.concatenate([[0], np.cumsum(e)[:-1]]) for e in edges]
        for coords in np.ndindex(*[len(e) for e in edges]):
            region = tuple(slice(int(starts[d][c]), int(starts[d][c] + edges[d][c])) for d, c in enumerate(coords))
            if coords in missing:
                expected[tuple(slice(r.start, min(r.stop, shape[d])) for d, r in enumerate(region))] = fill
                continue
            chunk = np.full([edges[d][c] for d, c in enumerate(coords)], fill, dtype=dtype)
            inside = tuple(slice(0, max(0, min(r.stop, shape[d]) - r.start)) for d, r in enumerate(region))
            chunk[inside] = data[tuple(slice(r.start, min(r.stop, shape[d])) for d, r in enumerate(region))]
            write_chunk(root / name, "c/" + "/".join(map(str, coords)), chunk.astype(np.dtype(dtype).newbyteorder("<")).tobytes(), compress)
        record(store, name, expected, None, np.array(fill, dtype)[()], "scripts/make_fixtures.py (by hand)", attrs={"edges": edges})

    # The spec's example: integer, explicit list, run-length, mixed, and an explicit list with overflow.
    rectilinear("spec_example", "int16", (6, 6, 6, 6, 6), [4, [1, 2, 3], [[4, 2]], [[1, 3], 3], [4, 4, 4]],
                [[4, 4], [1, 2, 3], [4, 4], [1, 1, 1, 3], [4, 4]], 0, False)
    rectilinear("irregular_2d", "float32", (10, 9), [[3, 1, [2, 2], 2], [[4, 2], 9]],
                [[3, 1, 2, 2, 2], [4, 4, 9]], -1.0, True, missing={(1, 2), (4, 0)})
    # r16: two opaque bytes per element, no byte order.
    raw = RNG.integers(0, 256, (5, 4, 2), dtype=np.uint8)
    (root / "raw16").mkdir()
    (root / "raw16" / "zarr.json").write_text(json.dumps({
        "zarr_format": 3, "node_type": "array", "shape": [5, 4], "data_type": "r16",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 3]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": [170, 187],
        "codecs": [{"name": "bytes"}], "attributes": {}}, indent=1))
    expected = raw.copy()
    expected[4, 3] = [170, 187]  # chunk (2, 1) is missing: rows 4..5, cols 3..5
    for ci in range(3):
        for cj in range(2):
            if (ci, cj) == (2, 1):
                continue
            chunk = np.tile(np.array([170, 187], np.uint8), (2, 3, 1))
            part = raw[2 * ci:2 * ci + 2, 3 * cj:3 * cj + 3]
            chunk[:part.shape[0], :part.shape[1]] = part
            write_chunk(root / "raw16", f"c/{ci}/{cj}", chunk.tobytes(), False)
    EXPECTED.append({"store": store, "path": "raw16", "writer": "scripts/make_fixtures.py (by hand)", "dtype": "r16",
                     "shape": [5, 4], "chunks": [2, 3], "fill_value": [170, 187], "data": "v3.expected/handmade__raw16.bin",
                     "attrs": {}, "dimension_names": None})
    (FIXTURES / "v3.expected" / "handmade__raw16.bin").write_bytes(expected.tobytes())


def write_manifest():
    groups = {"v3.zarr": {"": {"title": "zarr-wasm v3 fixtures", "writer": f"zarr-python {zarr.__version__}"},
                          "nested/deeper": {"depth": 2}}}
    (FIXTURES / "v3.expected.json").write_text(json.dumps({"arrays": EXPECTED, "groups": groups}, indent=1) + "\n")


def write_bad():
    """Corrupt and unsupported stores. Writers never produce these, so each starts from a real
    zarr-python array and breaks (or extends) exactly one thing."""
    bad = FIXTURES / "bad.zarr"
    shutil.rmtree(bad, ignore_errors=True)
    root = zarr.open_group(bad, mode="w", zarr_format=3)
    data = values_for(np.dtype("uint16"), (8, 8))
    plain = ["wrong_size", "unknown_codec", "ignorable_codec", "unknown_dtype", "bad_fill", "nan_int_fill", "unknown_grid",
             "unknown_key_encoding", "storage_transformer", "unknown_field", "ignorable_field"]
    for name, compressors in [("truncated_gzip", [GzipCodec(level=1)]), ("corrupt_gzip", [GzipCodec(level=1)]),
                              ("crc32c_mismatch", [Crc32cCodec()])] + [(n, None) for n in plain]:
        root.create_array(name, shape=data.shape, chunks=(4, 4), dtype=data.dtype, compressors=compressors)[...] = data
    (FIXTURES / "bad.expected.bin").write_bytes(expected_bytes(data))
    chunk = bad / "truncated_gzip" / "c" / "0" / "0"
    chunk.write_bytes(chunk.read_bytes()[:len(chunk.read_bytes()) // 2])
    chunk = bad / "corrupt_gzip" / "c" / "0" / "0"
    raw = bytearray(chunk.read_bytes())
    for i in range(12, len(raw) - 8, 3):
        raw[i] ^= 0x5A
    chunk.write_bytes(bytes(raw))
    chunk = bad / "crc32c_mismatch" / "c" / "0" / "0"
    raw = bytearray(chunk.read_bytes())
    raw[5] ^= 0x01  # a data byte; the checksum at the end no longer matches
    chunk.write_bytes(bytes(raw))
    chunk = bad / "wrong_size" / "c" / "0" / "0"
    chunk.write_bytes(chunk.read_bytes() + b"\0\0\0")
    # Corrupt chunks of the other compressors, each from a real chunk (chunk 0/0 only).
    from zarr.codecs import BloscCodec, ZstdCodec
    from zarr.codecs import numcodecs as nc
    image = synthetic_image(64, 5)
    corrupt = {
        "truncated_blosc": ([BloscCodec(cname="lz4", clevel=5, shuffle="shuffle")], lambda b: b[:len(b) * 2 // 3]),
        "blosc_wrong_nbytes": ([BloscCodec(cname="lz4", clevel=5, shuffle="shuffle")], lambda b: b[:4] + (4096).to_bytes(4, "little") + b[8:]),
        "blosc_bad_offset": ([BloscCodec(cname="zstd", clevel=5, shuffle="bitshuffle")], lambda b: b[:16] + (999999).to_bytes(4, "little") + b[20:]),
        "blosc_version3": ([BloscCodec(cname="lz4", clevel=5, shuffle="shuffle")], lambda b: b"\x03" + b[1:]),
        "corrupt_blosc_stream": ([BloscCodec(cname="lz4", clevel=5, shuffle="shuffle")], lambda b: b[:40] + bytes(x ^ 0xA5 for x in b[40:])),
        "truncated_zstd": ([ZstdCodec(level=3)], lambda b: b[:len(b) // 2]),
        "zstd_checksum_mismatch": ([ZstdCodec(level=3, checksum=True)], lambda b: b[:-4] + bytes(x ^ 0xFF for x in b[-4:])),
        "truncated_lz4": ([nc.LZ4()], lambda b: b[:len(b) // 2]),
        "zlib_adler_mismatch": ([nc.Zlib(level=1)], lambda b: b[:-1] + bytes([b[-1] ^ 1])),
    }
    # A sharded array whose first shard's index (at the end, bytes + crc32c) has a flipped byte.
    from zarr.codecs import ShardingCodec
    root.create_array("shard_index_crc", shape=image.shape, chunks=(32, 32), dtype=image.dtype,
                      compressors=None, serializer=ShardingCodec(chunk_shape=(8, 8), codecs=[BytesCodec(), ZstdCodec(level=1)]))[...] = image
    chunk = bad / "shard_index_crc" / "c" / "0" / "0"
    raw = bytearray(chunk.read_bytes())
    raw[-20] ^= 0x01
    chunk.write_bytes(bytes(raw))
    for name, (compressors, damage) in corrupt.items():
        root.create_array(name, shape=image.shape, chunks=(32, 32), dtype=image.dtype, compressors=compressors)[...] = image
        chunk = bad / name / "c" / "0" / "0"
        chunk.write_bytes(damage(chunk.read_bytes()))
    edits = {
        "unknown_codec": lambda m: m["codecs"].append({"name": "frobnicate", "configuration": {}}),
        "ignorable_codec": lambda m: m["codecs"].append({"name": "frobnicate", "must_understand": False}),
        "unknown_dtype": lambda m: m.update(data_type="uint7"),
        "bad_fill": lambda m: m.update(fill_value=70000),
        "nan_int_fill": lambda m: m.update(fill_value="NaN"),
        "unknown_grid": lambda m: m.update(chunk_grid={"name": "hexagonal", "configuration": {"size": 4}}),
        "unknown_key_encoding": lambda m: m.update(chunk_key_encoding={"name": "morton"}),
        "storage_transformer": lambda m: m.update(storage_transformers=[{"name": "chunk-manifest-json", "configuration": {}}]),
        "unknown_field": lambda m: m.update(future_field={"anything": 1}),
        "ignorable_field": lambda m: m.update(future_field={"must_understand": False, "anything": 1}),
    }
    for name, edit in edits.items():
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


BENCH_CODECS = {
    # name: (compressors, what the benchmark table calls it)
    "raw": (None, "bytes only (no compression)"),
    "gzip": ("GzipCodec(level=5)", "gzip level 5"),
    "zlib": ("nc.Zlib(level=5)", "numcodecs.zlib level 5"),
    "zstd": ("ZstdCodec(level=3)", "zstd level 3"),
    "lz4": ("nc.LZ4(acceleration=1)", "numcodecs.lz4"),
    "blosc_lz4_shuffle": ('BloscCodec(cname="lz4", clevel=5, shuffle="shuffle")', "blosc lz4 shuffle"),
    "blosc_lz4_bitshuffle": ('BloscCodec(cname="lz4", clevel=5, shuffle="bitshuffle")', "blosc lz4 bitshuffle"),
    "blosc_zstd_shuffle": ('BloscCodec(cname="zstd", clevel=5, shuffle="shuffle")', "blosc zstd shuffle"),
    "blosc_zstd_bitshuffle": ('BloscCodec(cname="zstd", clevel=5, shuffle="bitshuffle")', "blosc zstd bitshuffle"),
    "blosc_zlib_shuffle": ('BloscCodec(cname="zlib", clevel=5, shuffle="shuffle")', "blosc zlib shuffle"),
    "blosc_blosclz_shuffle": ('BloscCodec(cname="blosclz", clevel=5, shuffle="shuffle")', "blosc blosclz shuffle"),
    "blosc_blosclz_bitshuffle": ('BloscCodec(cname="blosclz", clevel=5, shuffle="bitshuffle")', "blosc blosclz bitshuffle"),
}


def write_bench():
    """The 2048x2048 uint16 image under every codec the benchmark compares, with bench.json
    naming them in table order."""
    from zarr.codecs import BloscCodec, ZstdCodec
    from zarr.codecs import numcodecs as nc
    path = ROOT / "bench" / "data" / "bench.zarr"
    shutil.rmtree(path, ignore_errors=True)
    shutil.rmtree(ROOT / "bench" / "data" / "tiles.zarr", ignore_errors=True)
    image = synthetic_image(2048, 2)
    root = zarr.open_group(path, mode="w", zarr_format=3)
    for name, (compressor, _) in BENCH_CODECS.items():
        compressors = [eval(compressor)] if compressor else None
        root.create_array(name, data=image, chunks=(256, 256), compressors=compressors)
    # Tile streaming: 1024 x 1024 shards of 128 x 128 zstd inner chunks.
    tiles = zarr.open_group(ROOT / "bench" / "data" / "tiles.zarr", mode="w", zarr_format=3)
    tiles.create_array("image", data=image, chunks=(128, 128), shards=(1024, 1024), compressors=[ZstdCodec(level=3)])
    (ROOT / "bench" / "data" / "bench.json").write_text(
        json.dumps([[name, label] for name, (_, label) in BENCH_CODECS.items()], indent=1) + "\n")


if __name__ == "__main__":
    write_v3()
    write_codecs()
    write_consolidated()
    write_tensorstore()
    write_ml_types()
    write_handmade()
    write_manifest()
    write_bad()
    write_bench()
    print("fixtures written with zarr-python", zarr.__version__)
