#!/usr/bin/env python3
"""Writes what other writers put on disk that the other fixture sets' writers do not, and the
expected values beside it. Run with `bash scripts/make_fixtures.sh writers` (a venv of its own,
Python >= 3.12: zarr-python 3.4 needs it). Outputs:
  tests/fixtures/writers/zarr_python_34.zarr/  zarr-python 3.4's registry `struct` records (object
                                               fields, object fill values), plain and sharded
  tests/fixtures/writers/nczarr.zarr/          netCDF-C's NCZarr through netCDF4-python with
                                               zlib=True: numcodecs' shuffle as {"elementsize": 0}
  tests/fixtures/writers.expected.json and writers.expected/, in the layout make_fixtures_v2.py
  documents (its helpers record them)
Everything is seeded, so values are the same on every run.
"""
import json
import shutil
import sys
from pathlib import Path

import netCDF4
import numpy as np
import zarr

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_fixtures_v2 as fx  # noqa: E402

OUT = fx.FIXTURES / "writers"
fx.EXPECTED_DIR = fx.FIXTURES / "writers.expected"
MANIFEST = fx.FIXTURES / "writers.expected.json"
ZARR = f"zarr-python {zarr.__version__}"
NETCDF = f"netCDF4-python {netCDF4.__version__} (netCDF-C {netCDF4.__netcdf4libversion__})"


def write_struct():
    """Records as zarr-python 3.4 writes them: the registry's `struct`, whose fields are objects
    and whose fill value is an object of the fields' fill values."""
    store = "writers/zarr_python_34.zarr"
    path = fx.FIXTURES / store
    root = zarr.open_group(str(path), mode="w", zarr_format=3, attributes={"writer": ZARR})
    little = np.dtype([("id", "<i4"), ("pos", "<f8"), ("name", "S3"), ("inner", [("a", "<u2"), ("b", "?")])])
    arrays = [
        # name, dtype, shape, inner chunks, shards, fill value, regions written
        ("records", little, (9,), (2,), None, (5, -2.5, b"q", (3, True)), [np.s_[0:4], np.s_[8:9]]),
        ("records_2d_sharded", little, (6, 5), (2, 2), (4, 4), (-1, 0.5, b"z", (9, False)),
         [np.s_[0:4, 0:4], np.s_[5:6, :]]),
    ]
    for name, dtype, shape, chunks, shards, fill, regions in arrays:
        fill = np.array(fill, dtype=dtype)[()]
        data = fx.records_for(dtype, shape)
        arr = root.create_array(name, shape=shape, chunks=chunks, shards=shards, dtype=dtype, fill_value=fill)
        expected = np.full(shape, fill, dtype=dtype)
        for region in regions:
            arr[region] = data[region]
            expected[region] = data[region]
        meta = json.loads((path / name / "zarr.json").read_text())
        assert meta["data_type"]["name"] == "struct", meta["data_type"]
        got = zarr.open_array(str(path / name))[...]
        assert got.tobytes() == expected.astype(got.dtype).tobytes(), name
        # Stored bytes as the manifest keeps records: as NumPy holds this dtype.
        fx.record(store, name, expected, shards or chunks, fill, ZARR, order="C", zarr_format=3)


def write_nczarr():
    """A NetCDF-4 variable written by netCDF-C as NCZarr (Zarr v2 with NCZarr's attributes), with
    zlib and shuffle: netCDF-C writes the shuffle filter as {"id": "shuffle", "elementsize": 0}."""
    store = "writers/nczarr.zarr"
    path = fx.FIXTURES / store
    shutil.rmtree(path, ignore_errors=True)
    ds = netCDF4.Dataset(f"file://{path}#mode=nczarr,file", "w")
    ds.createDimension("y", 9)
    ds.createDimension("x", 7)
    variables = [
        ("temperature", "f4", (4, 3), fx.values_for(np.dtype("<f4"), (9, 7))),
        ("counts", "i2", (5, 5), fx.values_for(np.dtype("<i2"), (9, 7))),
        ("ids", "u8", (3, 7), fx.values_for(np.dtype("<u8"), (9, 7))),
    ]
    for name, dtype, chunks, data in variables:
        v = ds.createVariable(name, dtype, ("y", "x"), zlib=True, shuffle=True, chunksizes=chunks)
        v.set_auto_mask(False)
        v[:] = data
    ds.close()
    for name, dtype, chunks, data in variables:
        meta = json.loads((path / name / ".zarray").read_text())
        assert {"id": "shuffle", "elementsize": 0} in meta["filters"], meta
        back = netCDF4.Dataset(f"file://{path}#mode=nczarr,file")
        back.set_auto_mask(False)
        got = back[name][:]
        back.close()
        assert got.tobytes() == data.tobytes(), name
        fill = np.array(meta["fill_value"], dtype=data.dtype)[()]
        attrs = json.loads((path / name / ".zattrs").read_text())
        fx.record(store, name, data, chunks, fill, NETCDF, attrs=attrs, order="C", zarr_format=2)


if __name__ == "__main__":
    shutil.rmtree(OUT, ignore_errors=True)
    shutil.rmtree(fx.EXPECTED_DIR, ignore_errors=True)
    OUT.mkdir(parents=True)
    # record() names a value file after its store, here below writers/.
    (fx.EXPECTED_DIR / "writers").mkdir(parents=True)
    write_struct()
    write_nczarr()
    MANIFEST.write_text(json.dumps({"arrays": fx.EXPECTED}, indent=1) + "\n")
    print("writer fixtures written with", ZARR, "and", NETCDF)
