#!/usr/bin/env python3
"""Writes the committed Zarr v2 data sets with real v2 writers, and the expected values beside them.

Run with `bash scripts/make_fixtures.sh v2`, which runs it twice: with zarr-python 2.18 (and
tensorstore) in one pinned venv, and with zarr-python 3 in v2 mode in the other. Outputs of the
zarr-python 2 run:
  tests/fixtures/v2.zarr/               a v2 hierarchy written by zarr-python 2 (not consolidated)
  tests/fixtures/v2_consolidated.zarr/  a v2 hierarchy with zarr-python's .zmetadata
  tests/fixtures/tensorstore_v2.zarr/   arrays written by tensorstore's zarr (v2) driver
  tests/fixtures/bad_v2.zarr/           corrupt or unsupported variants of real arrays
  tests/fixtures/v2.expected.json       per array: store, path, dtype, shape, chunks, fill value,
                                        attrs, dimension names, fields, writer and data file
  tests/fixtures/v2.expected/*.bin      each array's values in C order: numbers and datetimes
                                        little endian, bool as 0/1 bytes, complex as (re, im),
                                        S and V types as their bytes, U as UTF-32LE, structured
                                        records as NumPy stores them (each field in its own byte
                                        order), object strings in numcodecs' vlen layout
Outputs of the zarr-python 3 run:
  tests/fixtures/zarr3_v2.zarr/         a consolidated v2 hierarchy written by zarr-python 3
  tests/fixtures/zarr3_types.zarr/      zarr-python 3's v3 extension data types (datetimes, S, U,
                                        V, records), recorded in the same manifest
  tests/fixtures/v2_zarr3.expected.json and v2_zarr3.expected/, as above
Everything is seeded, so values are the same on every run.
"""
import base64
import json
import math
import shutil
from pathlib import Path

import numcodecs
import numpy as np
import tensorstore as ts
import zarr
from importlib.metadata import version as package_version

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
ZARR_MAJOR = int(zarr.__version__.split(".")[0])
# Each writer's run has its own manifest and values folder.
EXPECTED_DIR = FIXTURES / ("v2.expected" if ZARR_MAJOR == 2 else "v2_zarr3.expected")
MANIFEST = FIXTURES / f"{EXPECTED_DIR.name}.json"
RNG = np.random.default_rng(20261123 + ZARR_MAJOR)
ZARR = f"zarr-python {zarr.__version__} (numcodecs {numcodecs.__version__})"
TENSORSTORE = f"tensorstore {package_version('tensorstore')}"
EXPECTED = []


def dtype_name(dtype, object_codec=None):
    """The data type name zarr-wasm reports (`arr.dtype`)."""
    if dtype.kind == "O":
        if isinstance(object_codec, (numcodecs.JSON, numcodecs.MsgPack)):
            return "object"
        return "variable_length_bytes" if isinstance(object_codec, numcodecs.VLenBytes) else "string"
    if dtype.fields is not None:
        return "structured"
    if dtype.kind in "mM":
        unit, count = np.datetime_data(dtype)
        return f"{'datetime64' if dtype.kind == 'M' else 'timedelta64'}[{'' if count == 1 else count}{unit}]"
    if dtype.kind == "S":
        return f"S{dtype.itemsize}"
    if dtype.kind == "U":
        return f"U{dtype.itemsize // 4}"
    if dtype.kind == "V":
        return f"r{dtype.itemsize * 8}"
    return {"b": "bool"}.get(dtype.kind, dtype.newbyteorder("=").name)


def fields_json(dtype):
    """A structured type's fields as zarr-wasm reports them, with each field's NumPy type string
    (so tests can read the stored records independently)."""
    out = []
    for name in dtype.names:
        sub, offset = dtype.fields[name][:2]
        base, shape = (sub.subdtype if sub.subdtype else (sub, ()))
        entry = {"name": name, "offset": offset, "shape": list(shape)}
        if base.fields is not None:
            entry.update(dtype="structured", fields=fields_json(base))
        else:
            entry.update(dtype=dtype_name(base), numpy=base.str)
        out.append(entry)
    return out


def fill_json(value, dtype):
    """The fill value as zarr-wasm reports it (`arr.fillValue`), in JSON: null, numbers, "NaN" and
    infinities, 64-bit integers and datetimes as strings, strings, raw and record bytes as lists."""
    if value is None:
        return None
    if dtype.kind == "O":
        return value if isinstance(value, str) else None
    if dtype.fields is not None or dtype.kind == "V":
        return list(np.array(value, dtype=dtype).tobytes())
    if dtype.kind == "S":
        return bytes(value).rstrip(b"\0").decode()
    if dtype.kind == "U":
        return str(value)
    if dtype.kind in "mM":
        return str(int(np.array(value, dtype=dtype).astype(dtype.newbyteorder("=")).view("i8")))
    if dtype.kind == "c":
        return [fill_json(value.real, np.dtype("f8")), fill_json(value.imag, np.dtype("f8"))]
    if dtype.kind == "f":
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return float(value)
    if dtype.kind == "b":
        return bool(value)
    if dtype.itemsize == 8:
        return str(int(value))
    return int(value)


def expected_bytes(data):
    """Values as the manifest stores them (see the module's docstring)."""
    out = np.ascontiguousarray(data)
    if out.dtype.kind == "O":
        items = [v.encode() if isinstance(v, str) else bytes(v) for v in out.reshape(-1)]
        return len(items).to_bytes(4, "little") + b"".join(len(v).to_bytes(4, "little") + v for v in items)
    if out.dtype.kind == "b":
        return out.astype(np.uint8).tobytes()
    if out.dtype.fields is not None or out.dtype.kind in "VS":
        return out.tobytes()
    if out.dtype.kind in "mM":
        return out.astype(out.dtype.newbyteorder("<")).view("<i8").tobytes()
    return out.astype(out.dtype.newbyteorder("<")).tobytes()


def as_read(value):
    """Attributes as zarr-wasm reads them: zarr-python writes Python's NaN and Infinity tokens for
    non-finite floats, which zarr-wasm reads as the strings the Zarr specs use for them."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: as_read(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_read(v) for v in value]
    return value


def record(store, path, data, chunks, fill, writer, attrs=None, object_codec=None, order="C", zarr_format=2):
    file = f"{store.removesuffix('.zarr')}__{path.replace('/', '__')}.bin"
    EXPECTED_DIR.mkdir(exist_ok=True)
    (EXPECTED_DIR / file).write_bytes(expected_bytes(data))
    attrs = as_read(attrs or {})
    names = attrs.get("_ARRAY_DIMENSIONS")
    entry = {
        "store": store, "path": path, "writer": writer, "zarr_format": zarr_format,
        "dtype": dtype_name(data.dtype, object_codec), "shape": list(data.shape), "chunks": list(chunks),
        "fill_value": fill_json(fill, data.dtype), "data": f"{EXPECTED_DIR.name}/{file}", "attrs": attrs,
        "dimension_names": names if isinstance(names, list) and len(names) == data.ndim else None,
        "order": order,
    }
    if data.dtype.kind in "mM":
        entry["time_unit"] = entry["dtype"].split("[")[1].rstrip("]")
    if data.dtype.fields is not None:
        entry["fields"] = fields_json(data.dtype)
    EXPECTED.append(entry)


def values_for(dtype, shape):
    """Random values over the type's range, with its extremes and (floats) specials."""
    n = int(np.prod(shape))
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        data = RNG.integers(0, 2, n).astype(bool)
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        data = RNG.integers(info.min, info.max, n, dtype=dtype.newbyteorder("="), endpoint=True).astype(dtype)
        data[:2] = [info.min, info.max]
    elif dtype.kind == "c":
        data = (RNG.standard_normal(n) * 1e3 + 1j * RNG.standard_normal(n) * 1e3).astype(dtype)
        data[:3] = [complex(np.nan, 1), complex(np.inf, -np.inf), complex(-0.0, 0.5)]
    elif dtype.kind == "f":
        data = (RNG.standard_normal(n) * (10 if dtype.itemsize == 2 else 1e3)).astype(dtype)
        data[:4] = [np.nan, np.inf, -np.inf, -0.0]
    elif dtype.kind in "mM":
        data = RNG.integers(-2 ** 40, 2 ** 40, n).astype("i8").view(dtype.newbyteorder("=")).astype(dtype)
        data[0] = np.datetime64("NaT") if dtype.kind == "M" else np.timedelta64("NaT")
    elif dtype.kind == "S":
        words = [b"", b"a", b"zarr", b"x" * dtype.itemsize, b"\xff\x00q", b"mid\x00nul"]
        data = np.array([words[i % len(words)][:dtype.itemsize] for i in range(n)], dtype=dtype)
    elif dtype.kind == "U":
        words = ["", "é", "日本", "😀", "zarr wasm", "tab\t", "a\x00b"]
        data = np.array([words[i % len(words)][:dtype.itemsize // 4] for i in range(n)], dtype=dtype)
    elif dtype.kind == "V":
        data = np.frombuffer(RNG.integers(0, 256, n * dtype.itemsize, dtype=np.uint8).tobytes(), dtype=dtype).copy()
    else:
        raise ValueError(dtype)
    return data.reshape(shape)


def records_for(dtype, shape):
    """Random records: every leaf field filled with values_for its own type."""
    data = np.zeros(shape, dtype=dtype)

    def fill(target, dt):
        for name in dt.names:
            sub = dt.fields[name][0]
            base = sub.subdtype[0] if sub.subdtype else sub
            if base.fields is not None:
                fill(target[name], base)
            else:
                target[name] = values_for(base, target[name].shape)

    fill(data, dtype)
    return data


class V2Writer:
    """Writes arrays into one v2 hierarchy with zarr-python (2, or 3 in v2 mode) and records them."""

    def __init__(self, store, attrs):
        self.store = store
        self.path = FIXTURES / store
        shutil.rmtree(self.path, ignore_errors=True)
        if ZARR_MAJOR == 2:
            self.root = zarr.open_group(str(self.path), mode="w")
        else:
            self.root = zarr.open_group(str(self.path), mode="w", zarr_format=2)
        self.root.attrs.update(attrs)

    def create(self, name, data, chunks, fill_value, **kw):
        if ZARR_MAJOR == 2:
            return self.root.create_dataset(name, shape=data.shape, chunks=chunks, dtype=data.dtype,
                                            fill_value=fill_value, **kw)
        # zarr-python 3 names them differently, and takes the object codec from the data type.
        kw.pop("object_codec", None)
        if "compressor" in kw:
            kw["compressors"] = kw.pop("compressor")
        if "dimension_separator" in kw:
            kw["chunk_key_encoding"] = {"name": "v2", "separator": kw.pop("dimension_separator")}
        dtype = str if data.dtype.kind == "O" else data.dtype
        return self.root.create_array(name, shape=data.shape, chunks=chunks, dtype=dtype, fill_value=fill_value, **kw)

    def array(self, name, data, chunks, fill_value=0, write=None, lossy=False, attrs=None, **kw):
        arr = self.create(name, data, chunks, fill_value, **kw)
        if attrs:
            arr.attrs.update(attrs)
        if lossy:
            arr[...] = data
            data = arr[...]
        elif write is None:
            arr[...] = data
        else:
            # Only some regions are written: the other chunks never exist in the store.
            expected = np.zeros(data.shape, dtype=data.dtype) if fill_value is None else np.full(data.shape, fill_value, dtype=data.dtype)
            if data.dtype.kind == "O":
                expected = np.full(data.shape, "" if fill_value is None or not isinstance(fill_value, str) else fill_value, dtype=object)
            for region in write:
                arr[region] = data[region]
                expected[region] = data[region]
            data = expected
        got = arr[...]
        if fill_value is None and write is not None and data.dtype.kind != "O":
            # Missing chunks have undefined content in zarr-python (np.empty); zarr-wasm reads zeros.
            # Only the written regions can be compared.
            written = np.zeros(data.shape, dtype=bool)
            for region in write:
                written[region] = True
            got = np.where(written, got, data)
        if data.dtype.kind == "O" and write is not None:
            # zarr-python reads missing object elements as the fill value itself (0 or None);
            # zarr-wasm reads them as empty strings.
            got = np.array([g if isinstance(g, (str, bytes)) else type(data.flat[0])() for g in got.reshape(-1)], dtype=object).reshape(got.shape)
        if data.dtype.kind in "mM":
            assert np.array_equal(got.view("i8"), data.view("i8")), name
        elif data.dtype.fields is None and data.dtype.kind not in "SUVO":
            assert np.array_equal(got, data, equal_nan=data.dtype.kind in "fc"), name
        else:
            assert got.tobytes() == data.tobytes() if data.dtype.kind != "O" else list(got.reshape(-1)) == list(data.reshape(-1)), name
        meta = json.loads((self.path / name / ".zarray").read_text())
        assert meta["zarr_format"] == 2
        zattrs = self.path / name / ".zattrs"
        # The attributes as the document has them (zarr-python sorts the keys).
        attrs = json.loads(zattrs.read_text()) if zattrs.exists() else {}
        record(self.store, name, data, chunks, fill_value, ZARR, attrs=attrs,
               object_codec=kw.get("object_codec"), order=meta["order"])
        return arr


def write_v2():
    w = V2Writer("v2.zarr", {"title": "zarr-wasm v2 fixtures", "writer": ZARR})
    zlib = numcodecs.Zlib(level=1)
    w.root.create_group("dtypes", overwrite=True).attrs["about"] = "every v2 dtype kind, little endian, edge chunks"
    for s in ["|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f2", "<f4", "<f8", "<c8", "<c16"]:
        dt = np.dtype(s)
        w.array(f"dtypes/{dtype_name(dt)}", values_for(dt, (13, 11)), (5, 4), fill_value=False if dt.kind == "b" else 0,
                compressor=zlib)
    w.root.create_group("big_endian")
    for s in [">i2", ">u4", ">i8", ">u8", ">f2", ">f4", ">f8", ">c8", ">c16"]:
        dt = np.dtype(s)
        w.array(f"big_endian/{dtype_name(dt)}", values_for(dt, (9, 7)), (4, 4), compressor=None if s == ">f8" else
                numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE))
    w.root.create_group("time", overwrite=True).attrs["about"] = "datetime64 and timedelta64 with NaT"
    w.array("time/datetime_ns", values_for(np.dtype("<M8[ns]"), (6, 5)), (4, 4), fill_value=np.datetime64("NaT"),
            compressor=numcodecs.Zstd(level=1), write=[np.s_[0:4, 0:4], np.s_[4:6, 4:5]])
    w.array("time/datetime_days", values_for(np.dtype("<M8[D]"), (10,)), (4,), compressor=zlib,
            fill_value=np.datetime64("2000-01-01", "D"), write=[np.s_[0:8]])
    w.array("time/timedelta_10s_big", values_for(np.dtype(">m8[10s]"), (7,)), (3,), fill_value=np.timedelta64(5, "10s"),
            compressor=None)
    w.array("time/timedelta_ms", values_for(np.dtype("<m8[ms]"), (8,)), (8,), compressor=zlib, fill_value=np.timedelta64(0, "ms"))
    w.root.create_group("strings", overwrite=True).attrs["about"] = "fixed and variable length strings, raw bytes"
    w.array("strings/bytes_s6", values_for(np.dtype("S6"), (9, 4)), (4, 3), fill_value=b"-", compressor=zlib,
            write=[np.s_[0:8, 0:4]])
    w.array("strings/unicode_u4_big", values_for(np.dtype(">U4"), (7,)), (3,), fill_value="∅", compressor=None,
            write=[np.s_[0:6]])
    w.array("strings/unicode_u3", values_for(np.dtype("<U3"), (5, 5)), (2, 3), fill_value="", compressor=zlib)
    w.array("strings/raw_v5", values_for(np.dtype("V5"), (6,)), (4,), fill_value=b"\x01\x02\x03\x04\x05",
            compressor=numcodecs.Zstd(level=3), write=[np.s_[0:4]])
    words = ["", "a", "zarr", "héllo wörld", "日本語のテキスト", "emoji 😀🎉", "tab\tnewline\n", "x" * 300, "\u0000nul"]
    strings = np.array([words[i % len(words)] + (str(i) if i % 4 else "") for i in range(30)], dtype=object).reshape(6, 5)
    w.array("strings/vlen_utf8", strings, (4, 2), fill_value="", object_codec=numcodecs.VLenUTF8(),
            compressor=numcodecs.Blosc(cname="zstd", clevel=3, shuffle=numcodecs.Blosc.NOSHUFFLE))
    w.array("strings/vlen_utf8_default_fill", strings, (4, 2), object_codec=numcodecs.VLenUTF8(), compressor=zlib,
            write=[np.s_[0:4, 0:2]])
    blobs = np.empty(11, dtype=object)
    for i in range(11):
        blobs[i] = bytes(RNG.integers(0, 256, i % 6, dtype=np.uint8)) + b"\x00" * (i % 3)
    w.array("strings/vlen_bytes", blobs, (4,), fill_value=None, object_codec=numcodecs.VLenBytes(), compressor=None)
    w.array("strings/categorize_object", np.array(["red", "green", "red", "", "blue", "green", "red"], dtype=object), (3,),
            fill_value=None, object_codec=numcodecs.Categorize(["red", "green", "blue"], dtype=object), compressor=zlib)
    w.array("strings/categorize_u5", np.array(["red", "green", "red", "", "blue", "green", "red"], dtype="<U5"), (3,),
            fill_value="", filters=[numcodecs.Categorize(["red", "green", "blue"], dtype="<U5", astype="<u2")],
            compressor=None)

    w.root.create_group("structured", overwrite=True).attrs["about"] = "records: nested, subarrays, mixed byte order"
    point = np.dtype([("x", "<f4"), ("y", ">i2", (2, 3)), ("inner", [("a", "|u1"), ("b", ">c8"), ("t", "<M8[s]")]),
                      ("name", "S5"), ("label", "<U3"), ("flag", "|b1")])
    fill = np.zeros((), point)
    fill["x"], fill["name"], fill["label"], fill["inner"]["a"] = -1.5, b"none", "∅", 7
    w.array("structured/point", records_for(point, (5, 4)), (2, 3), fill_value=fill[()], compressor=zlib,
            write=[np.s_[0:4, 0:3], np.s_[4:5, 3:4]])
    w.array("structured/simple_null_fill", records_for(np.dtype([("id", "<u4"), ("v", "<f8")]), (7,)), (3,),
            fill_value=None, compressor=None)

    w.root.create_group("order", overwrite=True).attrs["about"] = "Fortran-order chunks"
    w.array("order/f_3d_int32", values_for(np.dtype("<i4"), (7, 6, 5)), (3, 4, 2), order="F",
            compressor=numcodecs.Zstd(level=3))
    w.array("order/f_2d_delta", (np.cumsum(RNG.integers(-5, 6, 96)) + 1000).astype("<i4").reshape(8, 12), (5, 5),
            order="F", filters=[numcodecs.Delta(dtype="<i4", astype="<i2")], compressor=zlib)
    w.array("order/f_big_float", values_for(np.dtype(">f8"), (5, 4, 3)), (2, 3, 2), order="F", compressor=None)
    w.array("order/f_unicode", values_for(np.dtype("<U2"), (4, 5)), (3, 2), order="F", fill_value="", compressor=None)
    w.array("order/f_vlen_utf8", strings, (4, 3), order="F", fill_value="", object_codec=numcodecs.VLenUTF8(),
            compressor=zlib)
    w.array("order/f_structured", records_for(np.dtype([("a", "<i2"), ("b", ">f4", (2,))]), (3, 4)), (2, 3), order="F",
            fill_value=None, compressor=None)

    w.root.create_group("compressors", overwrite=True).attrs["about"] = "every compressor numcodecs has in C, and none"
    image = (RNG.normal(1000, 50, (64, 48))).astype("<u2")
    for name, compressor in [
        ("blosc_lz4_shuffle", numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE)),
        ("blosc_zstd_bitshuffle", numcodecs.Blosc(cname="zstd", clevel=3, shuffle=numcodecs.Blosc.BITSHUFFLE)),
        ("blosc_blosclz_noshuffle", numcodecs.Blosc(cname="blosclz", clevel=9, shuffle=numcodecs.Blosc.NOSHUFFLE)),
        ("blosc_zlib_autoshuffle", numcodecs.Blosc(cname="zlib", clevel=1, shuffle=numcodecs.Blosc.AUTOSHUFFLE)),
        ("zlib", numcodecs.Zlib(level=6)), ("gzip", numcodecs.GZip(level=5)), ("zstd", numcodecs.Zstd(level=5)),
        ("zstd_checksum", numcodecs.Zstd(level=1, checksum=True)),
        ("lz4", numcodecs.LZ4(acceleration=1)), ("none", None)]:
        w.array(f"compressors/{name}", image, (20, 32), compressor=compressor)
    w.root.create_group("filters", overwrite=True).attrs["about"] = "numcodecs filters before the compressor"
    smooth = (np.sin(np.linspace(0, 20, 40 * 30)) * 1000).reshape(40, 30)
    w.array("filters/delta", (np.cumsum(RNG.integers(-5, 6, 1200)) + 100000).astype("<i8").reshape(40, 30), (16, 16),
            filters=[numcodecs.Delta(dtype="<i8")], compressor=numcodecs.Blosc(cname="lz4", clevel=5))
    w.array("filters/fixedscaleoffset", smooth / 100 + 15, (16, 16), lossy=True,
            filters=[numcodecs.FixedScaleOffset(offset=15, scale=100, dtype="<f8", astype="<i2")], compressor=zlib)
    w.array("filters/quantize", smooth, (16, 16), lossy=True, filters=[numcodecs.Quantize(digits=2, dtype="<f8")],
            compressor=zlib)
    w.array("filters/bitround", smooth.astype("<f4"), (16, 16), lossy=True, filters=[numcodecs.BitRound(keepbits=5)],
            compressor=numcodecs.Zstd(level=1))
    w.array("filters/astype", smooth, (16, 16), lossy=True,
            filters=[numcodecs.AsType(encode_dtype="<f4", decode_dtype="<f8")], compressor=None)
    w.array("filters/shuffle_crc32", smooth.astype("<f4"), (16, 16),
            filters=[numcodecs.Shuffle(elementsize=4), numcodecs.CRC32()], compressor=zlib)
    w.array("filters/adler32", image, (32, 32), filters=[numcodecs.Adler32()], compressor=None)

    w.root.create_group("layouts", overwrite=True).attrs["about"] = "key layouts, sparse arrays, dimension names"
    w.array("layouts/nested_keys", values_for(np.dtype("<u2"), (10, 9, 4)), (4, 4, 3), dimension_separator="/",
            compressor=zlib)
    w.array("layouts/dimension_names", values_for(np.dtype("<i2"), (6, 8)), (3, 3), compressor=None,
            attrs={"_ARRAY_DIMENSIONS": ["y", "x"], "units": "counts", "scale": [0.5, 0.25]})
    w.array("layouts/scalar", np.array(7, dtype="<i4"), (), compressor=None)
    w.array("layouts/empty", np.zeros((0, 5), dtype="<f4"), (2, 2), compressor=zlib)
    w.array("layouts/nan_fill", values_for(np.dtype("<f8"), (40, 40)), (10, 10), fill_value=float("nan"),
            compressor=zlib, write=[np.s_[0:10, 0:10], np.s_[25:33, 12:18]],
            attrs={"_FillValue": float("nan"), "valid_range": [float("-inf"), float("inf")], "note": "NaN"})
    w.array("layouts/null_fill", values_for(np.dtype("<i4"), (20, 20)), (10, 10), fill_value=None, compressor=zlib,
            write=[np.s_[0:10, 10:20]])
    w.array("layouts/int_fill", values_for(np.dtype("<i2"), (20, 20)), (10, 10), fill_value=-42, compressor=zlib,
            write=[np.s_[5:15, 5:15]])
    w.array("layouts/complex_fill", values_for(np.dtype("<c16"), (6, 6)), (3, 3), fill_value=complex(1.5, -2.25),
            compressor=None, write=[np.s_[0:3, 0:3]])
    w.array("layouts/many_chunks", values_for(np.dtype("|u1"), (64, 64)), (4, 4), compressor=zlib)
    deep = w.root.create_group("nested").create_group("deeper")
    deep.attrs["depth"] = 2
    w.array("nested/deeper/leaf", values_for(np.dtype("<u2"), (5, 5)), (5, 5), compressor=None)


def write_consolidated():
    w = V2Writer("v2_consolidated.zarr", {"title": "consolidated v2 hierarchy"})
    images = w.root.create_group("images")
    images.attrs["kind"] = "images"
    w.array("images/raw", values_for(np.dtype("<u2"), (16, 16)), (8, 8), compressor=numcodecs.Zlib(level=1))
    w.array("images/labels", values_for(np.dtype("|u1"), (16, 16)), (16, 16), compressor=None,
            attrs={"_ARRAY_DIMENSIONS": ["y", "x"]})
    w.root.create_group("images/more/deep")
    w.array("table", values_for(np.dtype("<f8"), (10,)), (5,), compressor=None)
    zarr.consolidate_metadata(str(w.path))


def write_tensorstore():
    """A second writer: tensorstore's zarr driver (v2 metadata)."""
    store = "tensorstore_v2.zarr"
    root = FIXTURES / store
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    (root / ".zgroup").write_text(json.dumps({"zarr_format": 2}))

    def open_array(name, metadata, field=None):
        spec = {"driver": "zarr", "kvstore": {"driver": "file", "path": str(root / name)}, "metadata": metadata}
        if field:
            spec["field"] = field
        return ts.open(spec, create=field is None or field == metadata["dtype"][0][0], open=True).result()

    def plain(name, dtype, shape, chunks, fill=None, compressor=None, order="C", separator=None, write=None):
        meta = {"shape": list(shape), "chunks": list(chunks), "dtype": dtype, "compressor": compressor, "order": order,
                "fill_value": fill_json(fill, np.dtype(dtype)) if fill is not None and np.dtype(dtype).kind not in "SV" else None}
        if separator:
            meta["dimension_separator"] = separator
        arr = ts.open({"driver": "zarr", "kvstore": {"driver": "file", "path": str(root / name)}, "metadata": meta},
                      create=True, delete_existing=True).result()
        data = values_for(np.dtype(dtype), shape)
        # tensorstore holds S<n> and V<n> elements as an extra dimension of n bytes.
        as_ts = (lambda d: np.frombuffer(d.tobytes(), "S1").reshape(d.shape + (d.dtype.itemsize,))) \
            if np.dtype(dtype).kind in "SV" else (lambda d: d)
        if write is None:
            arr.write(as_ts(data)).result()
            expected = data
        else:
            expected = np.zeros(shape, dtype=dtype) if fill is None else np.full(shape, fill, dtype=dtype)
            for region in write:
                arr[region].write(as_ts(data[region])).result()
                expected[region] = data[region]
        if np.dtype(dtype).kind in "SV":
            # tensorstore reads them back as a zero-size NumPy type: zarr-python checks them instead.
            assert zarr.open(str(root / name), mode="r")[...].tobytes() == expected.tobytes(), name
        else:
            got = arr.read().result()
            assert np.array_equal(got, expected, equal_nan=True), name
        written = json.loads((root / name / ".zarray").read_text())
        record(store, name, expected, chunks, fill, TENSORSTORE, order=written["order"])

    plain("f_order_big_int32", ">i4", (7, 6, 5), (3, 4, 2), compressor={"id": "zlib", "level": 1}, order="F")
    plain("zstd_nested_keys", "<u2", (10, 12), (4, 5), compressor={"id": "zstd", "level": 3}, separator="/")
    plain("gzip", "<i8", (9, 9), (4, 4), compressor={"id": "gzip", "level": 5})
    plain("blosc_bitshuffle_nan", "<f4", (20, 20), (8, 8), fill=float("nan"),
          compressor={"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 2}, write=[np.s_[0:8, 0:8], np.s_[10:15, 3:20]])
    plain("complex_fill", "<c8", (6, 6), (4, 4), fill=complex(1, float("nan")), write=[np.s_[0:4, 0:4]])
    plain("bool_fill_true", "|b1", (9, 9), (4, 4), fill=True, write=[np.s_[0:4, 4:8]])
    plain("null_fill", "<u2", (9, 9), (4, 4), write=[np.s_[4:8, 0:4]])
    plain("bytes_s3", "|S3", (10,), (4,), compressor={"id": "zlib", "level": 1})
    plain("raw_v3", "|V3", (10,), (4,))

    # A structured type is written field by field.
    dtype = np.dtype([("a", "<i4", (2,)), ("b", ">f8"), ("c", "|u1")])
    meta = {"shape": [7, 3], "chunks": [3, 2], "dtype": [["a", "<i4", [2]], ["b", ">f8"], ["c", "|u1"]],
            "compressor": {"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 1}, "fill_value": None}
    shutil.rmtree(root / "structured", ignore_errors=True)
    data = records_for(dtype, (7, 3))
    for name in dtype.names:
        arr = ts.open({"driver": "zarr", "kvstore": {"driver": "file", "path": str(root / "structured")},
                       "metadata": meta, "field": name}, create=name == "a", open=True).result()
        arr.write(data[name]).result()
    record(store, "structured", data, (3, 2), None, TENSORSTORE)


def write_bad():
    """Corrupt and unsupported v2 arrays, each a real zarr-python 2 array with one thing broken."""
    bad = FIXTURES / "bad_v2.zarr"
    shutil.rmtree(bad, ignore_errors=True)
    root = zarr.open_group(str(bad), mode="w")
    data = values_for(np.dtype("<u2"), (8, 8))
    (FIXTURES / "bad_v2.expected.bin").write_bytes(expected_bytes(data))

    def array(name, **kw):
        arr = root.create_dataset(name, shape=data.shape, chunks=(4, 4), dtype=data.dtype, **kw)
        arr[...] = data
        return bad / name

    for name in ["unknown_filter", "unknown_dtype", "no_byte_order", "no_object_codec", "format3", "bad_order",
                 "bad_fill", "bad_zattrs", "not_json"]:
        array(name, compressor=None)
    array("bz2", compressor=numcodecs.BZ2(level=1))
    obj = root.create_dataset("pickle", shape=(4,), chunks=(2,), dtype=object, object_codec=numcodecs.Pickle())
    obj[...] = np.array(["a", "b", "c", "d"], dtype=object)
    path = array("truncated_zlib", compressor=numcodecs.Zlib(level=1)) / "0.0"
    path.write_bytes(path.read_bytes()[:len(path.read_bytes()) // 2])
    # Large enough that c-blosc compresses it (tiny chunks are stored as they are).
    image = (np.sin(np.linspace(0, 30, 64 * 64)) * 1000 + 2000).astype("<u2").reshape(64, 64)
    root.create_dataset("corrupt_blosc", data=image, chunks=(32, 32),
                        compressor=numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE))
    path = bad / "corrupt_blosc" / "0.0"
    raw = path.read_bytes()
    assert not raw[2] & 0x02, "the chunk is compressed"
    path.write_bytes(raw[:40] + bytes(b ^ 0xA5 for b in raw[40:]))
    path = array("wrong_size", compressor=None) / "0.0"
    path.write_bytes(path.read_bytes() + b"\0\0\0")
    edits = {
        "unknown_filter": lambda m: m.update(filters=[{"id": "frobnicate", "strength": 3}]),
        "unknown_dtype": lambda m: m.update(dtype="<q8"),
        "no_byte_order": lambda m: m.update(dtype="u2"),
        "no_object_codec": lambda m: m.update(dtype="|O"),
        "format3": lambda m: m.update(zarr_format=3),
        "bad_order": lambda m: m.update(order="K"),
        "bad_fill": lambda m: m.update(fill_value=70000),
    }
    for name, edit in edits.items():
        meta = json.loads((bad / name / ".zarray").read_text())
        edit(meta)
        (bad / name / ".zarray").write_text(json.dumps(meta, indent=2))
    (bad / "bad_zattrs" / ".zattrs").write_text("[1, 2]")
    (bad / "not_json" / ".zarray").write_text("{ this is not json")


def write_awkward_names():
    """Field names that are JavaScript's own property names: a result must still hold them as fields."""
    w = V2Writer.__new__(V2Writer)
    w.store, w.path = "v2.zarr", FIXTURES / "v2.zarr"
    w.root = zarr.open_group(str(w.path), mode="a")
    dtype = np.dtype([("__proto__", "<i2"), ("constructor", "|u1"), ("toString", ">f4")])
    w.array("structured/awkward_names", records_for(dtype, (6,)), (4,), fill_value=None, compressor=None)


ZIPS = FIXTURES / "zip"


def write_zips_zarr2():
    """Zipped hierarchies: zarr-python 2's ZipStore (members stored), and Info-ZIP's zip with
    ZIP64 records forced and every member deflated. Both hold v2_consolidated.zarr."""
    import subprocess
    ZIPS.mkdir(exist_ok=True)
    source = FIXTURES / "v2_consolidated.zarr"
    target = ZIPS / "v2_zarr2.zip"
    target.unlink(missing_ok=True)
    with zarr.storage.ZipStore(str(target), mode="w") as dest:
        zarr.convenience.copy_store(zarr.storage.DirectoryStore(str(source)), dest)
    target = ZIPS / "v2_zip64_deflated.zip"
    target.unlink(missing_ok=True)
    subprocess.run(["zip", "-q", "-r", "-9", "-fz", "-X", str(target), "."], cwd=source, check=True)
    for name in ["v2_zarr2.zip", "v2_zip64_deflated.zip"]:
        assert zarr.open_group(zarr.storage.ZipStore(str(ZIPS / name), mode="r"))["images/raw"][...].tobytes() == \
            zarr.open_group(str(source), mode="r")["images/raw"][...].tobytes(), name


def write_objects():
    """Object arrays encoded by numcodecs' JSON (json2) and MsgPack (msgpack2) codecs, written by
    zarr-python 2: any JSON value per element (numbers, strings, lists, dicts, None), with a
    missing chunk. Recorded as each element's JSON text
    (what zarr-wasm gives as JS values); the values come from a random stream of their own."""
    store = "v2_objects.zarr"
    path = FIXTURES / store
    shutil.rmtree(path, ignore_errors=True)
    root = zarr.open_group(str(path), mode="w")
    root.attrs.update({"writer": ZARR})
    rng = np.random.default_rng(33)
    kinds = [lambda i: int(rng.integers(-10 ** 12, 10 ** 12)), lambda i: float(rng.standard_normal()),
             lambda i: "héllo " * (i % 3), lambda i: [i, "x", [1.5, None]], lambda i: {"k": i, "nested": {"ok": True}},
             lambda i: None, lambda i: bool(i % 2), lambda i: "日本語"]
    values = np.empty((7, 5), dtype=object)
    for i in range(values.size):
        values.flat[i] = kinds[i % len(kinds)](i)
    packed = values.copy()
    packed[6, 4] = {"one": 1, "two": [2.5, -7]}
    for name, chunks, compressor, write, codec, data in [
            ("json2", (3, 2), numcodecs.Zlib(level=1), [np.s_[0:6, :]], numcodecs.JSON(), values),
            ("json2_uncompressed", (7, 5), None, None, numcodecs.JSON(), values),
            ("msgpack2", (3, 2), numcodecs.Zlib(level=1), [np.s_[0:3, :], np.s_[6:7, :]], numcodecs.MsgPack(), packed)]:
        values = data
        arr = root.create_dataset(name, shape=values.shape, chunks=chunks, dtype=object,
                                  object_codec=codec, compressor=compressor, fill_value=None)
        expected = np.empty(values.shape, dtype=object)
        if write is None:
            arr[...] = values
            expected[...] = values
        else:
            for region in write:
                arr[region] = values[region]
                expected[region] = values[region]
        got = arr[...]
        assert json.dumps(got.tolist()) == json.dumps(expected.tolist()), name
        texts = np.array([json.dumps(v, ensure_ascii=False) for v in expected.reshape(-1)], dtype=object).reshape(expected.shape)
        record(store, name, texts, chunks, None, ZARR, object_codec=codec)


def write_zips_zarr3():
    """zarr-python 3's ZipStore with a sharded v3 array (members stored, so shards read in
    ranges) and a deflated copy: both hold codecs.zarr's sharding group."""
    from zarr.storage import LocalStore, ZipStore
    import asyncio
    import zipfile
    from zarr.core.buffer import default_buffer_prototype

    async def copy(target, compression):
        source = LocalStore(str(FIXTURES / "codecs.zarr"), read_only=True)
        dest = await ZipStore.open(str(target), mode="w", compression=compression)
        keys = [k async for k in source.list_prefix("sharding/")] + ["zarr.json"]
        for key in sorted(keys):
            dest_key = key if key != "zarr.json" else "zarr.json"
            await dest.set(dest_key, await source.get(key, prototype=default_buffer_prototype()))
        dest.close()

    ZIPS.mkdir(exist_ok=True)
    for name, compression in [("v3_sharded_zarr3.zip", zipfile.ZIP_STORED), ("v3_deflated_zarr3.zip", zipfile.ZIP_DEFLATED)]:
        (ZIPS / name).unlink(missing_ok=True)
        asyncio.run(copy(ZIPS / name, compression))
        arr = zarr.open_array(ZipStore(str(ZIPS / name), mode="r"), path="sharding/index_end")
        assert arr[...].tobytes() == zarr.open_array(str(FIXTURES / "codecs.zarr"), path="sharding/index_end")[...].tobytes()


def write_zarr3():
    """What zarr-python 3 writes in v2 mode (as xarray does for `zarr_format=2`), consolidated."""
    w = V2Writer("zarr3_v2.zarr", {"title": "v2 written by zarr-python 3", "writer": ZARR})
    zlib = numcodecs.Zlib(level=1)
    w.array("int16_zlib", values_for(np.dtype("<i2"), (13, 11)), (5, 4), compressor=zlib)
    w.array("float32_nan_sparse", values_for(np.dtype("<f4"), (20, 20)), (8, 8), fill_value=float("nan"),
            compressor=numcodecs.Blosc(cname="zstd", clevel=3, shuffle=numcodecs.Blosc.BITSHUFFLE),
            write=[np.s_[0:8, 0:8], np.s_[10:20, 12:20]])
    w.array("big_endian_delta", np.cumsum(RNG.normal(0, 1, (12, 10)), axis=1).astype(">f8"), (5, 5),
            filters=[numcodecs.Delta(dtype=">f8")], compressor=zlib, lossy=True)
    w.array("f_order_3d", values_for(np.dtype("<i4"), (7, 6, 5)), (3, 4, 2), order="F", compressor=zlib)
    strings = np.array(["", "a", "zarr", "héllo", "日本語", "😀", "x" * 50] * 3, dtype=object).reshape(3, 7)
    w.array("strings", strings, (2, 4), fill_value="", compressor=None, write=[np.s_[0:2, 0:4], np.s_[2:3, 4:7]])
    w.array("fixed_bytes", values_for(np.dtype("S4"), (9,)), (4,), fill_value=b"x", compressor=None, write=[np.s_[0:8]])
    w.array("unicode", values_for(np.dtype("<U3"), (9,)), (4,), fill_value="", compressor=zlib)
    w.array("datetime_ms", values_for(np.dtype("<M8[ms]"), (9,)), (4,), fill_value=np.datetime64("NaT"),
            compressor=None, write=[np.s_[0:4]])
    w.array("bool", values_for(np.dtype("|b1"), (9, 9)), (4, 4), fill_value=False, compressor=zlib)
    # numcodecs' packbits filter, base64 and the HDF5 checksums as v2 compressors (values from a
    # random stream of their own, so that the arrays after them keep theirs).
    rng = np.random.default_rng(32)
    w.array("bool_packbits_base64", rng.integers(0, 2, (13, 11)).astype(bool), (5, 4), fill_value=False,
            filters=[numcodecs.PackBits()], compressor=numcodecs.Base64())
    w.array("fletcher32", rng.integers(-30000, 30000, (13, 11)).astype("<i2"), (5, 4), compressor=numcodecs.Fletcher32())
    w.array("jenkins_lookup3", rng.integers(0, 2 ** 32, (13, 11)).astype("<u4"), (5, 4),
            compressor=numcodecs.JenkinsLookup3(initval=3))
    w.array("nested_keys", values_for(np.dtype("<u2"), (10, 9)), (4, 4), dimension_separator="/", compressor=None)
    w.array("dimension_names", values_for(np.dtype("<f8"), (4, 5)), (2, 5), compressor=None,
            attrs={"_ARRAY_DIMENSIONS": ["time", "x"], "long_name": "written as xarray does",
                   "missing_value": float("nan")})
    w.root.create_group("group", attributes={"kind": "a child group"})
    zarr.consolidate_metadata(str(w.path))


def write_zarr3_types():
    """zarr-python 3's v3 data types for NumPy types the core spec has no name for:
    numpy.datetime64 and numpy.timedelta64, fixed_length_utf32 (U), null_terminated_bytes (S),
    raw_bytes (V) and structured, read as their v2 equivalents. Sharded where zarr-python
    shards them, with missing chunks (the fill value) in each."""
    from zarr.codecs import ZstdCodec
    store = "zarr3_types.zarr"
    path = FIXTURES / store
    shutil.rmtree(path, ignore_errors=True)
    root = zarr.open_group(str(path), mode="w", zarr_format=3, attributes={"writer": ZARR})
    # Little-endian fields: zarr-python 3.1 writes a record's bytes as NumPy holds them but no
    # byte order in the metadata, and reads them back as little endian. No subarray fields:
    # zarr-python 3.1.6 writes them as raw_bytes and loses all but their first item.
    rec = np.dtype([("id", "<i4"), ("pos", "<f8"), ("name", "S3"), ("inner", [("a", "<u2"), ("b", "?")])])
    rec_fill = np.array((5, -2.5, b"q", (3, True)), dtype=rec)[()]
    arrays = [
        # name, values, inner chunks, shards (None: not sharded), fill value, regions written
        ("datetime_ms", values_for(np.dtype("<M8[ms]"), (9, 7)), (4, 4), None, np.datetime64("NaT", "ms"),
         [np.s_[0:4, 0:7], np.s_[8:9, 4:7]]),
        ("timedelta_10s_sharded", values_for(np.dtype("<m8[10s]"), (12, 10)), (2, 5), (6, 10), np.timedelta64(7, "10s"),
         [np.s_[0:6, :], np.s_[6:8, 0:5]]),
        ("unicode_sharded", values_for(np.dtype("<U4"), (10, 6)), (2, 3), (4, 6), "zz", [np.s_[0:4, :], np.s_[8:10, 0:3]]),
        ("fixed_bytes", values_for(np.dtype("S5"), (11,)), (4,), None, b"ab", [np.s_[0:8]]),
        ("raw_bytes", values_for(np.dtype("V3"), (7, 3)), (3, 3), None, b"\x01\x02\x03", [np.s_[0:3, :]]),
        # zarr-python 3.1.6 fails to shard records (its sharding codec hashes the fill value).
        ("records", records_for(rec, (9,)), (2,), None, rec_fill, [np.s_[0:4], np.s_[8:9]]),
    ]
    for name, data, chunks, shards, fill, write in arrays:
        arr = root.create_array(name, shape=data.shape, chunks=chunks, shards=shards, dtype=data.dtype,
                                fill_value=fill, compressors=[ZstdCodec(level=3)])
        expected = np.full(data.shape, fill, dtype=data.dtype)
        for region in write:
            arr[region] = data[region]
            expected[region] = data[region]
        got = zarr.open_array(str(path / name))[...]
        assert got.dtype.kind in "mM" and np.array_equal(got.view("i8"), expected.view("i8")) or got.tobytes() == expected.tobytes(), name
        record(store, name, expected, shards or chunks, fill, ZARR, order="C", zarr_format=3)


def write_manifest():
    groups = {"v2.zarr": {"": {"title": "zarr-wasm v2 fixtures", "writer": ZARR}, "nested/deeper": {"depth": 2}}}
    MANIFEST.write_text(json.dumps({"arrays": EXPECTED, "groups": groups}, indent=1) + "\n")


if __name__ == "__main__":
    shutil.rmtree(EXPECTED_DIR, ignore_errors=True)
    if ZARR_MAJOR == 2:
        write_v2()
        write_consolidated()
        write_tensorstore()
        write_bad()
        write_awkward_names()
        write_zips_zarr2()
        write_objects()
    else:
        write_zarr3()
        write_zips_zarr3()
        write_zarr3_types()
    write_manifest()
    print("v2 fixtures written with", ZARR, "and", TENSORSTORE)
