"""Writes tests/fixtures/gdal/: Zarr written by GDAL (Debian's gdal-bin, GDAL 3.6.2), the most used
Zarr writer in geospatial, with the values GDAL reads back, and numcodecs' LZMA with a delta
filter written by zarr-python; the manifest is tests/fixtures/gdal.expected.json, the values
tests/fixtures/gdal.expected/ (little-endian bytes, as the other fixture sets).

Two parts, each run by the Python that has its writer (scripts/make_gdal_fixtures.sh runs both):

  /usr/bin/python3 scripts/make_gdal_fixtures.py gdal
      Debian's Python with python3-gdal: two small rasters (uint16 with NODATA 0; float32 with
      NODATA -9999, a NaN and a geotransform, so that GDAL adds its X and Y arrays), written
      with `gdal_translate -of ZARR` and the creation options GDAL users write: COMPRESS=BLOSC
      with BLOSC_SHUFFLE=BIT, BYTE, NONE, NOSHUFFLE (which GDAL warns about and writes as
      given) and 2; COMPRESS=LZMA (XZ streams with the delta filter: LZMA_DELTA
      defaults to 1) and LZMA_DELTA=4; COMPRESS=ZLIB with FORMAT=ZARR_V2 and COMPRESS=GZIP; and
      FORMAT=ZARR_V3, which GDAL 3.6 writes in the pre-2023 v3 draft (refused by zarr-wasm: the
      manifest's "refused" lists what opening it must say). The expected values are GDAL's own
      reads: each array through the multidimensional API, each band also as a raster, both
      checked against the raster written.

  .venv-fixtures/bin/python scripts/make_gdal_fixtures.py zarr-python
      zarr-python 3.1.6 with numcodecs 0.16.5 (Python's lzma, that is liblzma): numcodecs' LZMA
      with filters=[delta, lzma2] as XZ (format 1) and raw (format 3, where the chain is only in
      the configuration), in v3 and v2. zarr-python reads the raw arrays back; it cannot read
      the XZ one (numcodecs hands its filters to lzma.decompress, which takes filters only for
      raw streams), so there the expected values are the values written, each chunk checked to
      decode to them with liblzma (lzma.decompress, the chain read from the stream).
"""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
OUT = FIXTURES / "gdal"
EXPECTED = FIXTURES / "gdal.expected"
MANIFEST = FIXTURES / "gdal.expected.json"
ZARR_PYTHON_STORES = ("zarr_python_lzma_filters.zarr", "zarr_python_lzma_filters_v2.zarr")


def fill_json(value):
    if value is None:
        return None
    value = value.item() if hasattr(value, "item") else value
    if isinstance(value, float) and np.isnan(value):
        return "NaN"
    return value


def expected_file(store, path, data):
    EXPECTED.mkdir(exist_ok=True)
    file = f"{store.removesuffix('.zarr')}__{path.replace('/', '__')}.bin"
    (EXPECTED / file).write_bytes(data.astype(data.dtype.newbyteorder("<")).tobytes())
    return f"gdal.expected/{file}"


def load_manifest():
    if MANIFEST.exists():
        return json.loads(MANIFEST.read_text())
    return {"arrays": [], "groups": [], "refused": []}


def save_manifest(manifest):
    manifest["arrays"].sort(key=lambda e: (e["store"], e["path"]))
    MANIFEST.write_text(json.dumps(manifest, indent=1) + "\n")


def rasters():
    """The two rasters, as NumPy arrays (bands first)."""
    rng = np.random.default_rng(20261127)
    y, x = np.mgrid[0:30, 0:40]
    u16 = np.stack([(y * 1200 + x * 700 + rng.integers(0, 50, (30, 40))) % 65000 + 1,
                    (65535 - y * 900 - x * 300 - rng.integers(0, 20, (30, 40)))]).astype("uint16")
    u16[0, :2, :3] = 0  # NODATA pixels
    u16[1, 29, 39] = 0
    u16[1, 0, 0] = 65535
    y, x = np.mgrid[0:21, 0:33]
    f32 = np.stack([np.sin(y / 5.0) * 100 + x * 0.25 + rng.standard_normal((21, 33)) * 0.01,
                    (y - 10.0) * (x - 16.0) / 7.0]).astype("float32")
    f32[0, 3:5, 2:7] = -9999  # NODATA pixels
    f32[1, 20, 32] = np.nan
    f32[1, 0, 0] = -0.0
    f32[0, 10, 10] = np.float32(3.4028235e38)
    return u16, f32


# (store, raster, creation options): what GDAL users write.
GDAL_STORES = [
    ("uint16_blosc_bit.zarr", "u16", ["COMPRESS=BLOSC", "BLOSC_SHUFFLE=BIT", "BLOCKSIZE=16,16"]),
    ("uint16_blosc_byte_zstd.zarr", "u16", ["COMPRESS=BLOSC", "BLOSC_SHUFFLE=BYTE", "BLOSC_CNAME=zstd", "BLOCKSIZE=16,16"]),
    ("uint16_blosc_2_blosclz.zarr", "u16", ["COMPRESS=BLOSC", "BLOSC_SHUFFLE=2", "BLOSC_CNAME=blosclz", "BLOCKSIZE=16,16"]),
    ("float32_blosc_none_zlib.zarr", "f32", ["COMPRESS=BLOSC", "BLOSC_SHUFFLE=NONE", "BLOSC_CNAME=zlib", "BLOCKSIZE=16,16"]),
    ("float32_blosc_noshuffle.zarr", "f32", ["COMPRESS=BLOSC", "BLOSC_SHUFFLE=NOSHUFFLE", "BLOCKSIZE=16,16"]),
    ("uint16_lzma.zarr", "u16", ["COMPRESS=LZMA", "BLOCKSIZE=16,16"]),
    ("float32_lzma_delta4.zarr", "f32", ["COMPRESS=LZMA", "LZMA_DELTA=4", "LZMA_PRESET=9", "BLOCKSIZE=16,16"]),
    ("uint16_zlib_v2.zarr", "u16", ["COMPRESS=ZLIB", "FORMAT=ZARR_V2", "BLOCKSIZE=16,16"]),
    ("float32_gzip.zarr", "f32", ["COMPRESS=GZIP", "GZIP_LEVEL=9", "BLOCKSIZE=16,16"]),
]
DRAFT_STORE = ("uint16_v3_draft.zarr", "u16", ["COMPRESS=ZLIB", "FORMAT=ZARR_V3", "BLOCKSIZE=16,16"])


def gdal_part():
    from osgeo import gdal

    gdal.UseExceptions()
    writer = f"GDAL {gdal.__version__}"
    u16, f32 = rasters()
    OUT.mkdir(exist_ok=True)
    sources = {}
    for name, data, nodata in [("u16", u16, 0), ("f32", f32, -9999)]:
        kind = gdal.GDT_UInt16 if data.dtype == np.uint16 else gdal.GDT_Float32
        bands, height, width = data.shape
        path = str(OUT / f".{name}.tif")
        ds = gdal.GetDriverByName("GTiff").Create(path, width, height, bands, kind)
        if name == "f32":
            # A geotransform without a CRS: GDAL writes X and Y arrays, and no _CRS attribute
            # (a few kB of WKT and PROJJSON per array, repeated in .zmetadata).
            ds.SetGeoTransform([5.0, 0.25, 0, 46.0, 0, -0.25])
        for b in range(bands):
            band = ds.GetRasterBand(b + 1)
            band.WriteArray(data[b])
            band.SetNoDataValue(nodata)
        ds = None
        sources[name] = (path, data)

    manifest = load_manifest()
    manifest["arrays"] = [e for e in manifest["arrays"] if not e["writer"].startswith("GDAL")]
    manifest["refused"] = []
    for store, raster, options in GDAL_STORES + [DRAFT_STORE]:
        target = OUT / store
        shutil.rmtree(target, ignore_errors=True)
        source, data = sources[raster]
        command = ["gdal_translate", "-q", "-of", "ZARR"] + [a for o in options for a in ("-co", o)] + [source, str(target)]
        subprocess.run(command, check=True)
        how = " ".join(["gdal_translate -of ZARR"] + [f"-co {o}" for o in options if not o.startswith("BLOCKSIZE")])
        # What GDAL reads back: every array through the multidimensional API, each band also as
        # a raster (the two must agree, and agree with what was written).
        md = gdal.OpenEx(str(target), gdal.OF_MULTIDIM_RASTER)
        group = md.GetRootGroup()
        for path in group.GetMDArrayNames():
            values = group.OpenMDArray(path).ReadAsArray()
            if path.startswith("Band"):
                band = int(path[4:]) - 1
                as_raster = gdal.Open(f'ZARR:"{target}":/{path}').ReadAsArray()
                assert np.array_equal(values, as_raster, equal_nan=True), (store, path)
                assert np.array_equal(values, data[band], equal_nan=True), (store, path)
            if store == DRAFT_STORE[0]:
                continue
            zarray = json.loads((target / path / ".zarray").read_text())
            attrs_file = target / path / ".zattrs"
            attrs = json.loads(attrs_file.read_text()) if attrs_file.exists() else {}
            names = attrs.get("_ARRAY_DIMENSIONS")
            manifest["arrays"].append({
                "store": f"gdal/{store}", "path": path, "writer": f"{writer} ({how})", "zarr_format": 2,
                "dtype": values.dtype.name, "shape": list(values.shape), "chunks": zarray["chunks"],
                "fill_value": fill_json(zarray["fill_value"]), "data": expected_file(store, path, values),
                "attrs": attrs, "dimension_names": names if isinstance(names, list) and len(names) == values.ndim else None,
                "order": zarray["order"], "compressor": zarray["compressor"],
            })
        if store == DRAFT_STORE[0]:
            # Refused wherever a user meets it: at the root and at an array below it.
            draft = "the pre-2023 Zarr v3 draft"
            uri = '"https://purl.org/zarr/spec/protocol/core/3.0"'
            for path, where in [("", f"gdal/{store}/zarr.json"), ("Band1", f"gdal/{store}/Band1/")]:
                manifest["refused"].append({
                    "store": f"gdal/{store}", "path": path, "writer": f"{writer} ({how})",
                    "error": "UnsupportedError", "message": [where, draft, uri, "FORMAT=ZARR_V3"],
                })
        # The consolidated metadata GDAL writes repeats each .zarray: the same as the files.
        zmetadata = target / ".zmetadata"
        if zmetadata.exists():
            listed = json.loads(zmetadata.read_text())["metadata"]
            for key, doc in listed.items():
                assert json.loads((target / key).read_text()) == doc, (store, key)
    for path, _ in sources.values():
        Path(path).unlink()
    save_manifest(manifest)
    print(f"{writer}: {len(GDAL_STORES) + 1} stores")


def zarr_python_part():
    import lzma

    import numcodecs
    import zarr
    from zarr.codecs import numcodecs as nc

    writer = f"zarr-python {zarr.__version__} with numcodecs {numcodecs.__version__}"
    rng = np.random.default_rng(20261127)
    manifest = load_manifest()
    stores = {f"gdal/{s}" for s in ZARR_PYTHON_STORES}
    manifest["arrays"] = [e for e in manifest["arrays"] if e["store"] not in stores]

    def lzma2(preset=6):
        return {"id": lzma.FILTER_LZMA2, "preset": preset}

    def record(store, path, arr, values, zarr_format, note=""):
        manifest["arrays"].append({
            "store": f"gdal/{store}", "path": path, "writer": writer + note, "zarr_format": zarr_format,
            "dtype": values.dtype.name, "shape": list(values.shape), "chunks": list(arr.chunks),
            "fill_value": fill_json(arr.fill_value), "data": expected_file(store, path, values),
            "attrs": dict(arr.attrs), "dimension_names": None,
        })

    # v3: XZ with delta(2) + LZMA2 (a missing chunk), raw with delta(4) + LZMA2.
    store = ZARR_PYTHON_STORES[0]
    shutil.rmtree(OUT / store, ignore_errors=True)
    root = zarr.open_group(OUT / store, mode="w", zarr_format=3)
    values = (np.cumsum(rng.integers(-40, 41, (24, 20)), axis=1) + 30000).astype("uint16")
    xz = root.create_array("xz_delta", shape=values.shape, dtype=values.dtype, chunks=(10, 10), fill_value=5,
                           compressors=[nc.LZMA(format=lzma.FORMAT_XZ, filters=[{"id": lzma.FILTER_DELTA, "dist": 2}, lzma2()])])
    xz[:20, :] = values[:20, :]
    values[20:, :] = 5  # the last row of chunks is not written: the fill value
    # zarr-python cannot read it back (lzma.decompress takes no filters for XZ): each chunk is
    # checked with liblzma reading the chain from the stream.
    for key in sorted((OUT / store / "xz_delta" / "c").rglob("*")):
        if key.is_file():
            i, j = (int(p) for p in key.relative_to(OUT / store / "xz_delta" / "c").parts)
            decoded = np.frombuffer(lzma.decompress(key.read_bytes(), format=lzma.FORMAT_XZ), "<u2").reshape(10, 10)
            want = np.full((10, 10), 5, "uint16")
            part = values[i * 10:(i + 1) * 10, j * 10:(j + 1) * 10]
            want[:part.shape[0], :part.shape[1]] = part
            assert np.array_equal(decoded, want), key
    record(store, "xz_delta", xz, values, 3, " (values as written: each chunk checked with liblzma's lzma.decompress)")

    floats = (np.sin(np.arange(15 * 12) / 9.0).reshape(15, 12) * 1000).astype("float32")
    raw = root.create_array("raw_delta", shape=floats.shape, dtype=floats.dtype, chunks=(8, 8), fill_value=0,
                            compressors=[nc.LZMA(format=lzma.FORMAT_RAW, filters=[{"id": lzma.FILTER_DELTA, "dist": 4}, lzma2(9)])])
    raw[...] = floats
    read = zarr.open_array(OUT / store, path="raw_delta", mode="r")[...]
    assert np.array_equal(read, floats)
    record(store, "raw_delta", raw, read, 3)

    # v2: raw with two delta filters, as numcodecs' compressor.
    store = ZARR_PYTHON_STORES[1]
    shutil.rmtree(OUT / store, ignore_errors=True)
    root = zarr.open_group(OUT / store, mode="w", zarr_format=2)
    ints = (np.arange(18 * 14).reshape(18, 14) * 37 % 1000 - 500).astype("<i4")
    chain = [{"id": lzma.FILTER_DELTA, "dist": 4}, {"id": lzma.FILTER_DELTA, "dist": 8}, lzma2(1)]
    arr = root.create_array("raw_deltas", shape=ints.shape, dtype=ints.dtype, chunks=(8, 8), fill_value=-1,
                            compressors=numcodecs.LZMA(format=lzma.FORMAT_RAW, filters=chain))
    arr[...] = ints
    read = zarr.open_array(OUT / store, path="raw_deltas", mode="r")[...]
    assert np.array_equal(read, ints)
    record(store, "raw_deltas", arr, read, 2)
    save_manifest(manifest)
    print(f"{writer}: {len(ZARR_PYTHON_STORES)} stores")


if __name__ == "__main__":
    {"gdal": gdal_part, "zarr-python": zarr_python_part}[sys.argv[1]]()
