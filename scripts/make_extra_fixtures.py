"""Writes the fixtures of the codecs zarr-wasm decodes in its second module (numcodecs' lzma, bz2
and pcodec): tests/fixtures/extra.zarr (v3) and extra_v2.zarr (v2), by zarr-python 3.1.6 with
numcodecs 0.16.5 (Python's lzma and bz2 modules, that is liblzma and libbzip2; pcodec 1.1.0 for
pcodec; zfpy 1.0.1, the ZFP C library's binding, for zfpy), with the values zarr-python reads back in tests/fixtures/extra.expected.json and
extra.expected/.

Run by `bash scripts/make_fixtures.sh extra` (the v3 venv, scripts/fixtures-requirements.txt).
"""
import json
import lzma
import shutil
from pathlib import Path

import numpy as np
import zarr
from zarr.codecs import numcodecs as nc

import numcodecs

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
RNG = np.random.default_rng(7_2026_11_25)
WRITER = f"zarr-python {zarr.__version__} with numcodecs {numcodecs.__version__}"
ENTRIES = []


def fill_json(value):
    value = value.item() if hasattr(value, "item") else value
    if isinstance(value, float) and np.isnan(value):
        return "NaN"
    return value


def smooth(dtype, shape):
    """Values that compress (a ramp with noise), over much of the type's range."""
    n = int(np.prod(shape))
    ramp = np.linspace(0, 1, n) + RNG.standard_normal(n) * 0.01
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        lo, hi = max(info.min, -(2**40)), min(info.max, 2**40)
        values = (lo + (hi - lo) * np.clip(ramp, 0, 1)).astype(dtype)
        values[:2] = [info.min, info.max]
    else:
        values = (ramp * 1000 - 300).astype(dtype)
        values[:3] = [np.nan, np.inf, -0.0]
    return values.reshape(shape)


def record(store, path, arr, zarr_format):
    """Adds what zarr-python reads back to the manifest."""
    data = arr[...]
    file = f"{store.removesuffix('.zarr')}__{path.replace('/', '__')}.bin"
    (FIXTURES / "extra.expected").mkdir(exist_ok=True)
    (FIXTURES / "extra.expected" / file).write_bytes(data.astype(data.dtype.newbyteorder("<")).tobytes())
    ENTRIES.append({
        "store": store, "path": path, "writer": WRITER, "zarr_format": zarr_format,
        "dtype": data.dtype.name, "shape": list(data.shape), "chunks": list(arr.shards or arr.chunks),
        "fill_value": fill_json(arr.fill_value), "data": f"extra.expected/{file}",
        "attrs": dict(arr.attrs), "dimension_names": None,
    })


def write(root, store, path, data, zarr_format, fill=0, missing=None, **codecs):
    """An array of `data` under `codecs`; `missing` is a region left unwritten (the fill value)."""
    arr = root.create_array(path, shape=data.shape, dtype=data.dtype, fill_value=fill, **codecs)
    if missing is None:
        arr[...] = data
    else:
        # Everything but the chunks (shards) of `missing`: written one whole chunk (shard) at a
        # time; inner chunks holding only the fill value are left out of their shard as well.
        keep = np.ones(data.shape, bool)
        keep[missing] = False
        stored = arr.shards or arr.chunks
        grid = [-(-n // c) for n, c in zip(data.shape, stored)]
        for index in np.ndindex(*grid):
            region = tuple(slice(i * c, min((i + 1) * c, n)) for i, c, n in zip(index, stored, data.shape))
            if keep[region].all():
                arr[region] = np.ascontiguousarray(data[region])
    record(store, path, arr, zarr_format)


def v3():
    store = "extra.zarr"
    shutil.rmtree(FIXTURES / store, ignore_errors=True)
    root = zarr.open_group(FIXTURES / store, mode="w", zarr_format=3)
    # lzma: XZ (numcodecs' default), the .lzma "alone" format, and a raw LZMA2 stream.
    write(root, store, "lzma/xz", smooth("uint16", (40, 30)), 3, fill=7, missing=(slice(32, 40), slice(16, 30)),
          chunks=(16, 16), compressors=[nc.LZMA()])
    write(root, store, "lzma/alone", smooth("float64", (50,)), 3, fill=float("nan"), chunks=(20,),
          compressors=[nc.LZMA(format=lzma.FORMAT_ALONE)])
    write(root, store, "lzma/raw", smooth("int32", (12, 12)), 3, chunks=(5, 5),
          compressors=[nc.LZMA(format=lzma.FORMAT_RAW, filters=[{"id": lzma.FILTER_LZMA2, "preset": 1}])])
    write(root, store, "lzma/sharded", smooth("int16", (32, 32)), 3, fill=-1, missing=(slice(16, 32), slice(0, 8)),
          chunks=(8, 8), shards=(16, 16), compressors=[nc.LZMA(preset=9)])
    # bz2: a chunk several bzip2 blocks long (level 1: 100 kB blocks), and a small one.
    write(root, store, "bz2/blocks", smooth("float32", (300, 300)), 3, chunks=(300, 300), compressors=[nc.BZ2(level=1)])
    write(root, store, "bz2/small", smooth("uint8", (9, 9)), 3, fill=3, missing=(slice(8, 9), slice(0, 9)),
          chunks=(4, 4), compressors=[nc.BZ2(level=9)])
    # pcodec: an array-to-bytes codec, every number type it stores, with and without delta; no
    # compressor after it (zarr-python would add zstd), as pcodec is one.
    # 8-bit types: pcodec refuses them unless told otherwise, and numcodecs does not tell it.
    for dtype in ["uint16", "int16", "uint32", "int32", "uint64", "int64", "float16", "float32", "float64"]:
        write(root, store, f"pcodec/{dtype}", smooth(dtype, (30, 20)), 3, chunks=(16, 16), serializer=nc.PCodec(), compressors=None)
    write(root, store, "pcodec/levels", smooth("int64", (1000,)), 3, fill=5, missing=(slice(800, 1000),),
          chunks=(200,), serializer=nc.PCodec(level=12, delta_encoding_order=2, mode_spec="classic", delta_spec="try_consecutive"), compressors=None)
    sharded = smooth("float32", (24, 24))
    sharded[:6, 6:12] = -1.5  # an inner chunk of the fill value
    write(root, store, "pcodec/sharded", sharded, 3, fill=-1.5, missing=(slice(12, 24), slice(0, 12)),
          chunks=(6, 6), shards=(12, 12), serializer=nc.PCodec(), compressors=None)
    zfpy_arrays(root, store)


def zfpy_arrays(root, store):
    """numcodecs' ZFPY (zfpy 1.0.1, the C library's Python binding) in each of its modes."""
    import zfpy
    zfp = lambda mode, **kw: nc.ZFPY(mode=mode, **kw)
    write(root, store, "zfpy/float32_accuracy", smooth("float32", (40, 30)), 3, fill=-2.5,
          missing=(slice(32, 40), slice(16, 30)), chunks=(16, 16), serializer=zfp(zfpy.mode_fixed_accuracy, tolerance=1e-3),
          compressors=None)
    write(root, store, "zfpy/float64_rate_3d", smooth("float64", (10, 12, 14)), 3, chunks=(5, 6, 7),
          serializer=zfp(zfpy.mode_fixed_rate, rate=16), compressors=None)
    write(root, store, "zfpy/int32_precision", smooth("int32", (30, 20)), 3, chunks=(16, 16),
          serializer=zfp(zfpy.mode_fixed_precision, precision=20), compressors=None)
    write(root, store, "zfpy/int64_4d", smooth("int64", (4, 5, 6, 7)), 3, chunks=(4, 5, 6, 7),
          serializer=zfp(zfpy.mode_fixed_precision, precision=48), compressors=None)
    # Not sharded: zarr-python hands numcodecs' ZFPY a view of the shard, which it refuses
    # ("does not support F order arrays").
    write(root, store, "zfpy/float64_1d", smooth("float64", (200,)), 3, fill=0.25, missing=(slice(100, 125),),
          chunks=(25,), serializer=zfp(zfpy.mode_fixed_accuracy, tolerance=1e-6), compressors=None)


def v2():
    store = "extra_v2.zarr"
    shutil.rmtree(FIXTURES / store, ignore_errors=True)
    root = zarr.open_group(FIXTURES / store, mode="w", zarr_format=2)
    write(root, store, "lzma", smooth("<u4", (20, 20)), 2, chunks=(8, 8), compressors=numcodecs.LZMA())
    write(root, store, "bz2", smooth(">i2", (20, 20)), 2, fill=9, missing=(slice(16, 20), slice(0, 8)), chunks=(8, 8),
          compressors=numcodecs.BZ2(level=5))
    write(root, store, "bz2_shuffle", smooth("<f8", (20, 20)), 2, chunks=(10, 10),
          filters=[numcodecs.Shuffle(elementsize=8)], compressors=numcodecs.BZ2(level=2))
    # pcodec as a v2 compressor: it is given the chunk's numbers, not their bytes.
    write(root, store, "pcodec", smooth("<i4", (20, 20)), 2, fill=-3, missing=(slice(16, 20), slice(16, 20)),
          chunks=(8, 8), compressors=numcodecs.PCodec())
    # zfpy as a v2 compressor, like pcodec given the chunk's numbers.
    write(root, store, "zfpy", smooth("<f4", (20, 20)), 2, chunks=(8, 8), compressors=numcodecs.ZFPY(tolerance=1e-2))


def v3_sharded_bz2():
    """bz2 inside shards, written after the rest with values of its own (the arrays above keep
    theirs)."""
    store = "extra.zarr"
    root = zarr.open_group(FIXTURES / store, mode="a", zarr_format=3)
    rng = np.random.default_rng(20261125)
    values = (np.cumsum(rng.integers(-3, 4, 24 * 24)).reshape(24, 24) + 500).astype("uint16")
    values[:6, 6:12] = 11  # an inner chunk of the fill value
    write(root, store, "bz2/sharded", values, 3, fill=11, missing=(slice(12, 24), slice(12, 24)),
          chunks=(6, 6), shards=(12, 12), compressors=[nc.BZ2(level=9)])


if __name__ == "__main__":
    v3()
    v2()
    v3_sharded_bz2()
    (FIXTURES / "extra.expected.json").write_text(json.dumps({"arrays": ENTRIES, "groups": []}, indent=1) + "\n")
    print(f"wrote {len(ENTRIES)} arrays")
