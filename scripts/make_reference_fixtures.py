#!/usr/bin/env python3
"""Writes the committed kerchunk reference fixtures: an HDF5 file (h5py) and a NetCDF-4 file
(netCDF4) with their usual codecs, the reference JSON files kerchunk writes for them, and the
values h5py and netCDF4 read back.

Run with `bash scripts/make_fixtures.sh references` (venv .venv-references,
scripts/references-requirements.txt). Outputs, in tests/fixtures/references/:
  data.h5, data.nc                  the files (a few KB each)
  h5.json                           kerchunk's SingleHdf5ToZarr (version 1) of data.h5, small
                                    chunks inlined as text or base64; its target URLs rewritten
                                    from the absolute path to "data.h5" (relative to the JSON)
  nc.json                           the same for data.nc, its URLs made a template by kerchunk's
                                    templateize ("{{u}}" for the common prefix)
  nc_v0.json                        data.nc's references as version 0: kerchunk 0.2.10 writes
                                    only version 1, so this is its "refs" flattened here
  nc_absolute.json                  data.nc's references with absolute URLs under
                                    file:///fixtures/references/ (the tests map that prefix)
  vz_nc.json                        VirtualiZarr's kerchunk JSON of data.nc (its HDFParser, then
                                    to_kerchunk), its absolute paths made relative
  gen.json                          a version 1 file written here by hand: kerchunk has no helper
                                    that writes "gen". It reads data.h5's contiguous int32
                                    dataset as a Zarr array of row blocks, each block's key and
                                    offset made by a generator over a template URL
  handmade.json                     version 0 by hand: uint8 arrays of an inline base64 chunk,
                                    an inline text chunk, a whole-file reference, a chunk left out
                                    (the fill value), a target that answers 404, a range past the
                                    end of its file (the test reads them)
  h5.parq/                          data.h5's references (h5.json's) as kerchunk's Parquet
                                    references (kerchunk.df.refs_to_dataframe: fastparquet, zstd),
                                    2 refs per refs.<i>.parq, target "../data.h5" (relative to the
                                    directory); paths dictionary-encoded (categorical_threshold=1);
                                    counts' unwritten chunks are null rows, and records with none
                                    written have no file
  nc_arrow.parq/                    data.nc's as Parquet references by fsspec's LazyReferenceMapper
                                    with the pyarrow engine (zstd, dictionary pages), 5 refs a file
  nc_snappy.parq/                   nc_arrow.parq's refs files as pyarrow writes them with other
                                    compressions and data page v2: snappy, gzip and uncompressed
                                    by turns, dictionary encoding off for the gzip ones, row
                                    groups of 2 rows and small pages for the uncompressed ones
  vz_nc_absolute.parq/              VirtualiZarr's Parquet references of data.nc (its to_kerchunk with
                                    format="parquet", 4 refs a file), its paths renamed by its
                                    rename_paths to file:///fixtures/references/data.nc (it takes
                                    no relative paths), which fsspec writes as the local path
                                    /fixtures/references/data.nc (the tests map the prefix)
  ../references.expected.json       the manifest (as the other fixture sets'), one entry per
  ../references.expected/*.bin      variable read through a reference file, values in C order
"""
import base64
import copy
import json
import pathlib
import shutil

import fsspec
import h5py
import kerchunk
import netCDF4
import numpy as np
import pyarrow
import pyarrow.parquet as pq
import virtualizarr
from fsspec.implementations.reference import LazyReferenceMapper
from kerchunk.df import refs_to_dataframe
from kerchunk.hdf import SingleHdf5ToZarr
from kerchunk.utils import templateize

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
OUT = FIXTURES / "references"
EXPECTED_DIR = FIXTURES / "references.expected"
MANIFEST = FIXTURES / "references.expected.json"
RNG = np.random.default_rng(20261127)
VERSIONS = (
    f"kerchunk {kerchunk.__version__}, h5py {h5py.__version__}, "
    f"netCDF4 {netCDF4.__version__}"
)
PARQUET_VERSIONS = f"fsspec {fsspec.__version__}, pyarrow {pyarrow.__version__}"
ABSOLUTE = "file:///fixtures/references/"


def write_h5(path):
    with h5py.File(path, "w") as f:
        f.attrs["title"] = "zarr-wasm reference fixture"
        t = (RNG.standard_normal((20, 30)) * 10 + 280).astype("<f4")
        d = f.create_dataset("temperature", data=t, chunks=(8, 10), compression="gzip",
                             compression_opts=4, shuffle=True)
        d.attrs["units"] = "K"
        # Only some chunks written: the others read as the fill value.
        c = f.create_dataset("counts", shape=(17, 13), dtype="<i2", chunks=(5, 5),
                             compression="gzip", shuffle=True, fillvalue=-999)
        c[0:5, 0:10] = RNG.integers(-500, 500, (5, 10), dtype="<i2")
        c[10:17, 5:13] = RNG.integers(0, 30000, (7, 8), dtype="<i2")
        f.create_dataset("flags", data=RNG.integers(0, 255, (300,), dtype="u1"), chunks=(64,),
                         compression="gzip", compression_opts=9)
        # Contiguous (not chunked): one reference to the whole dataset's bytes.
        f.create_dataset("contiguous", data=np.arange(48, dtype="<i4").reshape(8, 6) * 3 - 7)
        f.create_dataset("wide", data=RNG.standard_normal((6, 40)).astype("<f8"),
                         chunks=(3, 20), compression="gzip", shuffle=True)


def write_nc(path):
    with netCDF4.Dataset(path, "w", format="NETCDF4") as ds:
        ds.title = "zarr-wasm reference fixture"
        ds.createDimension("time", 6)
        ds.createDimension("lat", 10)
        ds.createDimension("lon", 12)
        time = ds.createVariable("time", "i4", ("time",))
        time.units = "days since 2000-01-01"
        time[:] = np.arange(6) * 30
        lat = ds.createVariable("lat", "f8", ("lat",))
        lat[:] = np.linspace(-45, 45, 10)
        lon = ds.createVariable("lon", "f8", ("lon",))
        lon[:] = np.linspace(0, 330, 12)
        tas = ds.createVariable("tas", "f4", ("time", "lat", "lon"), zlib=True, shuffle=True,
                                complevel=5, chunksizes=(2, 5, 6), fill_value=-9999.0)
        values = (RNG.standard_normal((6, 10, 12)) * 5 + 290).astype("f4")
        values[0, 0:3, 0:3] = -9999.0  # fill values among the data
        tas[:] = values
        tas.units = "K"
        pr = ds.createVariable("pr", "i2", ("time", "lat", "lon"), zlib=True, complevel=1,
                               chunksizes=(3, 10, 12), fill_value=np.int16(-1))
        pr[3:6] = RNG.integers(0, 1000, (3, 10, 12), dtype="i2")  # the first chunk left unwritten


def translate(path):
    """kerchunk's references of `path` (version 1), its URLs as kerchunk wrote them."""
    refs = SingleHdf5ToZarr(str(path), inline_threshold=100).translate()
    assert refs.get("version") == 1, refs.keys()
    return refs


def virtual_dataset(path):
    """VirtualiZarr's virtual dataset of `path` (its HDF5 parser)."""
    from obstore.store import LocalStore
    from virtualizarr import open_virtual_dataset
    from virtualizarr.parsers import HDFParser
    from virtualizarr.registry import ObjectStoreRegistry

    registry = ObjectStoreRegistry({"file://": LocalStore()})
    return open_virtual_dataset(f"file://{path}", registry=registry, parser=HDFParser(),
                                loadable_variables=[])


def virtualizarr_refs(path):
    """VirtualiZarr's references of `path` (its HDF5 parser, written as kerchunk JSON), relative."""
    refs = virtual_dataset(path).vz.to_kerchunk(format="dict")
    assert refs.get("version") == 1, refs.keys()
    return relative(refs, path)


def virtualizarr_parquet(path, name):
    """VirtualiZarr's Parquet references of `path` (its to_kerchunk(format="parquet"), 4 refs a
    file), its paths renamed by its rename_paths to an absolute URL under ABSOLUTE (it accepts
    no relative paths; the tests map the prefix)."""
    # A function, not a string: a string renames the empty path of unwritten chunks too, which
    # would make them zero-length ranges of the file.
    vds = virtual_dataset(path).vz.rename_paths(lambda p: ABSOLUTE + path.name if p else p)
    vds.vz.to_kerchunk(str(OUT / name), format="parquet", record_size=4)


def rewrite_urls(refs, fn):
    out = copy.deepcopy(refs)
    for key, value in out["refs"].items():
        if isinstance(value, list):
            value[0] = fn(value[0])
    return out


def relative(refs, path):
    """kerchunk writes the path it was given: made the file's name, relative to the JSON."""
    absolute = {str(path), f"file://{path}"}

    def fn(url):
        assert url in absolute, url
        return path.name

    return rewrite_urls(refs, fn)


def dump(name, refs):
    (OUT / name).write_text(json.dumps(refs, indent=1, sort_keys=True) + "\n")


def numpy_name(dtype):
    return {"f4": "float32", "f8": "float64", "i2": "int16", "i4": "int32", "u1": "uint8"}[
        dtype.str[1:]
    ]


EXPECTED = []


def record(reference, path, values, zarray, writer):
    name = f"{reference.replace('.json', '').replace('.parq', '_parq')}__{path}.bin"
    little = np.ascontiguousarray(values).astype(values.dtype.newbyteorder("<"))
    (EXPECTED_DIR / name).write_bytes(little.tobytes())
    fill = zarray["fill_value"]
    EXPECTED.append({
        "store": f"references/{reference}",
        "path": path,
        "writer": writer,
        "zarr_format": 2,
        "dtype": numpy_name(values.dtype),
        "shape": list(values.shape),
        "chunks": zarray["chunks"],
        "fill_value": fill,
        "compressor": zarray["compressor"],
        "filters": zarray["filters"],
        "data": f"references.expected/{name}",
    })


def parquet_refs(refs, name):
    """`refs` (version 1) with their target URLs made relative to a Parquet directory beside the
    files, as the Parquet writers take them."""
    return rewrite_urls(refs, lambda u: "../" + name)


def write_parquet_refs(refs, name, engine, record_size, categorical_threshold=10):
    """fsspec's LazyReferenceMapper (what kerchunk.df.refs_to_dataframe runs) with `engine`."""
    out = LazyReferenceMapper.create(str(OUT / name), record_size=record_size,
                                     categorical_threshold=categorical_threshold, engine=engine)
    for key in sorted(refs["refs"]):
        out[key] = refs["refs"][key]
    out.flush()


def rewrite_parquet(source, name):
    """`source`'s refs files rewritten by pyarrow with other compressions and data page v2."""
    shutil.copytree(OUT / source, OUT / name)
    files = sorted((OUT / name).glob("*/refs.*.parq"))
    assert len(files) >= 3, files
    for n, path in enumerate(files):
        table = pq.read_table(path)
        compression = ["snappy", "gzip", "none"][n % 3]
        # Uncompressed ones also in row groups of 2 rows, pages of a few values.
        split = compression == "none"
        pq.write_table(table, path, compression=compression, data_page_version="2.0",
                       use_dictionary=compression != "gzip", write_statistics=False,
                       row_group_size=2 if split else None, data_page_size=16 if split else None,
                       write_batch_size=1 if split else None)
    files = [pq.ParquetFile(f).metadata for f in files]
    assert any(m.num_row_groups > 1 for m in files), "some files have several row groups"


def check_parquet(name, refs, engine):
    """fsspec reads the Parquet references back to the references they were written from (with
    `engine`: fastparquet reads pyarrow's all-null columns as NaN, not None)."""
    mapper = LazyReferenceMapper(str(OUT / name), engine=engine)
    for key, value in refs["refs"].items():
        if key.endswith((".zarray", ".zattrs", ".zgroup")):
            continue
        got = mapper[key]
        if isinstance(value, list):
            assert list(got) == value, (name, key, got, value)
        else:
            want = base64.b64decode(value[7:]) if value.startswith("base64:") else value.encode()
            assert bytes(got) == want, (name, key)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    shutil.rmtree(EXPECTED_DIR, ignore_errors=True)
    OUT.mkdir(parents=True)
    EXPECTED_DIR.mkdir(parents=True)
    h5 = OUT / "data.h5"
    nc = OUT / "data.nc"
    write_h5(h5)
    write_nc(nc)

    h5_refs = relative(translate(h5), h5)
    dump("h5.json", h5_refs)
    nc_raw = translate(nc)
    nc_refs = relative(nc_raw, nc)

    # kerchunk's templateize: the URLs' common prefix as a template (it writes "{u}", Python's
    # format form; the reference spec's templates are jinja2's "{{u}}"). One file: the prefix is
    # its whole path, which the template gives relative to the JSON.
    urls = [v[0] for v in nc_raw["refs"].values() if isinstance(v, list)]
    templates, templated = templateize(urls, min_length=1)
    prefix = templates["u"]
    assert all(t.startswith("{u}") for t in templated) and prefix in {str(nc), f"file://{nc}"}
    nc_templated = rewrite_urls(nc_raw, lambda u: "{{u}}" + u[len(prefix):])
    nc_templated["templates"] = {"u": nc.name}
    dump("nc.json", nc_templated)
    # Version 0: the refs alone (kerchunk 0.2.10 writes only version 1).
    dump("nc_v0.json", nc_refs["refs"])
    dump("nc_absolute.json", rewrite_urls(nc_raw, lambda u: ABSOLUTE + nc.name))

    # VirtualiZarr's kerchunk output of the same file.
    vz_refs = virtualizarr_refs(nc)
    dump("vz_nc.json", vz_refs)

    # By hand: the contiguous dataset as row blocks of 2 rows, each 2 * 6 * 4 = 48 bytes on from
    # the dataset's offset, by a generator.
    contiguous = h5_refs["refs"]["contiguous/0.0"]
    assert isinstance(contiguous, list) and contiguous[2] == 8 * 6 * 4, contiguous
    base = contiguous[1]
    zarray = json.loads(h5_refs["refs"]["contiguous/.zarray"])
    zarray["chunks"] = [2, 6]
    gen = {
        "version": 1,
        "templates": {"u": "data.h5", "name": "contiguous"},
        "refs": {
            ".zgroup": json.dumps({"zarr_format": 2}),
            "rows/.zarray": json.dumps(zarray),
            "rows/.zattrs": json.dumps({"_ARRAY_DIMENSIONS": ["y", "x"], "from": "{{name}}"}),
        },
        "gen": [{
            "key": "rows/{{i}}.0",
            "url": "{{u}}",
            "offset": f"{{{{ {base} + i * (2 * 6 * 4) }}}}",
            "length": "{{ 48 }}",
            "dimensions": {"i": {"stop": 4}},
        }],
    }
    dump("gen.json", gen)

    # By hand, version 0: what kerchunk's files rarely show, as small uint8 arrays: an inline
    # base64 chunk, an inline text chunk (its UTF-8 bytes), a whole-file reference (data.h5's
    # bytes), an array with a chunk the file does not list (the fill value), a chunk whose target
    # answers 404, and one whose range runs past the end of its file.
    def zarray(n, chunk, fill=0):
        return json.dumps({"shape": [n], "chunks": [chunk], "dtype": "|u1", "fill_value": fill,
                           "order": "C", "filters": None, "compressor": None, "zarr_format": 2})

    text = "plain text, as UTF-8: \u00e9"
    size = h5.stat().st_size
    dump("handmade.json", {
        ".zgroup": json.dumps({"zarr_format": 2}),
        ".zattrs": {"note": "an object value is its JSON text"},
        "inline_bytes/.zarray": zarray(5, 5),
        "inline_bytes/0": "base64:" + base64.b64encode(bytes([0, 1, 2, 250, 255])).decode(),
        "inline_text/.zarray": zarray(len(text.encode()), len(text.encode())),
        "inline_text/0": text,
        "whole/.zarray": zarray(size, size),
        "whole/0": ["data.h5"],
        "missing_chunk/.zarray": zarray(10, 5, 7),
        "missing_chunk/0": "base64:" + base64.b64encode(bytes(range(5))).decode(),
        "gone/.zarray": zarray(16, 16),
        "gone/0": ["missing.h5", 0, 16],
        "past/.zarray": zarray(64, 64),
        "past/0": ["data.h5", size - 4, 64],
    })

    # Parquet references: kerchunk's refs_to_dataframe (fastparquet) of data.h5's, two refs a
    # file, so that some records hold only unwritten chunks (no file) and others a mix; pyarrow's
    # of data.nc's; and those rewritten with snappy, gzip and no compression.
    h5_parq = parquet_refs(h5_refs, h5.name)
    refs_to_dataframe(h5_parq, str(OUT / "h5.parq"), record_size=2, categorical_threshold=1)
    check_parquet("h5.parq", h5_parq, "fastparquet")
    nc_parq = parquet_refs(nc_refs, nc.name)
    write_parquet_refs(nc_parq, "nc_arrow.parq", "pyarrow", 5)
    check_parquet("nc_arrow.parq", nc_parq, "pyarrow")
    rewrite_parquet("nc_arrow.parq", "nc_snappy.parq")
    check_parquet("nc_snappy.parq", nc_parq, "pyarrow")
    virtualizarr_parquet(nc, "vz_nc_absolute.parq")

    writer_h5 = f"h5py, references by kerchunk ({VERSIONS}; scripts/make_reference_fixtures.py)"
    writer_nc = f"netCDF4, references by kerchunk ({VERSIONS}; scripts/make_reference_fixtures.py)"
    with h5py.File(h5, "r") as f:
        for name in ["temperature", "counts", "flags", "contiguous", "wide"]:
            za = json.loads(h5_refs["refs"][f"{name}/.zarray"])
            record("h5.json", name, f[name][...], za, writer_h5)
        for name in ["temperature", "counts", "flags", "contiguous", "wide"]:
            za = json.loads(h5_refs["refs"][f"{name}/.zarray"])
            record("h5.parq", name, f[name][...], za,
                   f"h5py, Parquet references by kerchunk.df.refs_to_dataframe ({VERSIONS}, "
                   f"{PARQUET_VERSIONS}, fastparquet; scripts/make_reference_fixtures.py)")
        record("gen.json", "rows", f["contiguous"][...], json.loads(gen["refs"]["rows/.zarray"]),
               f"h5py, references by hand with a generator ({VERSIONS}; scripts/make_reference_fixtures.py)")
    writer_vz = (f"netCDF4, references by VirtualiZarr {virtualizarr.__version__} ({VERSIONS}; "
                 "scripts/make_reference_fixtures.py)")
    with netCDF4.Dataset(nc) as ds:
        ds.set_auto_mask(False)
        for name in ["tas", "pr", "time", "lat", "lon"]:
            za = json.loads(vz_refs["refs"][f"{name}/.zarray"])
            record("vz_nc.json", name, ds[name][...], za, writer_vz)
        for name in ["tas", "pr", "time", "lat", "lon"]:
            za = json.loads(vz_refs["refs"][f"{name}/.zarray"])
            record("vz_nc_absolute.parq", name, ds[name][...], za,
                   f"netCDF4, Parquet references by VirtualiZarr {virtualizarr.__version__} "
                   f"(to_kerchunk(format=\"parquet\"): kerchunk.df.refs_to_dataframe; {VERSIONS}, "
                   f"{PARQUET_VERSIONS}; scripts/make_reference_fixtures.py)")
        for reference, how in [("nc_arrow.parq", "pyarrow"),
                               ("nc_snappy.parq", "rewritten by pyarrow: snappy, gzip, none")]:
            for name in ["tas", "pr", "time", "lat", "lon"]:
                za = json.loads(nc_raw["refs"][f"{name}/.zarray"])
                record(reference, name, ds[name][...], za,
                       f"netCDF4, Parquet references by fsspec's LazyReferenceMapper ({how}; "
                       f"{VERSIONS}, {PARQUET_VERSIONS}; scripts/make_reference_fixtures.py)")
        for reference in ["nc.json", "nc_v0.json", "nc_absolute.json"]:
            for name in ["tas", "pr", "time", "lat", "lon"]:
                za = json.loads(nc_raw["refs"][f"{name}/.zarray"])
                record(reference, name, ds[name][...], za, writer_nc)
    MANIFEST.write_text(json.dumps({"arrays": EXPECTED}, indent=1) + "\n")
    for p in sorted(OUT.rglob("*")):
        print(p.relative_to(ROOT), p.stat().st_size)


if __name__ == "__main__":
    main()
