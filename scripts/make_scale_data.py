"""Arrays at the sizes real data has, for the scale tests (tests/cases/scale.mjs), written by
zarr-python with numcodecs' C codecs at test time into target/scale-data/ (about 260 MB: the
generator is committed, never the bytes). scripts/make_scale_data.sh runs it in its own venv and
skips it when the data of this very script is there.

Every element is a hash of its indices, so that a reader checks every byte without a copy of
the data (the same formula is in tests/cases/scale.mjs), and so that chunks hardly compress:
their bodies are as large as their chunks.

    g = (i * 2654435761) xor (j * 2246822519)   (mod 2^32; i: row, j: column of the last two axes)
    h = ((g xor (g >> 13)) * 3266489917) mod 2^32
    uint8: h >> 24, uint16: h >> 16, float32: (h >> 8) / 16

Two arrays are "smooth" instead, so that their chunks compress as images do and their decoders
have real work (a 16 MiB chunk each, gzip and zstd: the longest single decodes a read meets):

    uint8: ((i >> 4) + (j >> 4) + (h >> 30)) mod 256
"""

import json
import sys
from pathlib import Path

import numcodecs
import numpy as np
import zarr
from zarr.codecs import BloscCodec, BytesCodec, GzipCodec, ShardingCodec, ZstdCodec

OUT = Path(sys.argv[1] if len(sys.argv) > 1 else "target/scale-data")


def hashed(rows, cols, dtype, pattern="hashed"):
    # uint32 arithmetic wraps, as the JS side's Math.imul does.
    rows_ = np.arange(rows, dtype=np.uint32)[:, None]
    cols_ = np.arange(cols, dtype=np.uint32)[None, :]
    g = (rows_ * np.uint32(2654435761)) ^ (cols_ * np.uint32(2246822519))
    h = (g ^ (g >> np.uint32(13))) * np.uint32(3266489917)
    if pattern == "smooth":
        assert dtype == "uint8"
        return (((rows_ >> 4) + (cols_ >> 4) + (h >> 30)) & 0xFF).astype(np.uint8)
    if dtype == "uint8":
        return (h >> 24).astype(np.uint8)
    if dtype == "uint16":
        return (h >> 16).astype(np.uint16)
    if dtype == "float32":
        return ((h >> 8).astype(np.float32) / np.float32(16)).astype(np.float32)
    raise ValueError(dtype)


def write(name, shape, dtype, pattern="hashed", **kwargs):
    rows, cols = shape[-2:]
    data = hashed(rows, cols, dtype, pattern).reshape(shape)
    array = zarr.create_array(
        store=str(OUT / name), shape=shape, dtype=dtype, fill_value=0, overwrite=True, **kwargs
    )
    array[...] = data
    return {"path": name, "shape": list(shape), "dtype": dtype, "pattern": pattern}


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    arrays = [
        # Small, for bodies sent a byte at a time: 2 KiB chunks, Blosc.
        write("small.zarr", (64, 64), "uint16", chunks=(32, 32),
              compressors=BloscCodec(cname="lz4", clevel=5, shuffle="shuffle")),
        # An uncompressed uint8 array of eight 1 MiB chunks: the smallest chunk size that failed
        # over HTTP before.
        write("chunks_1mib.zarr", (8, 1 << 20), "uint8", chunks=(1, 1 << 20),
              compressors=None),
        # A bioformats2raw level: Zarr v2, TCZYX, 1024 x 1024 uint16 chunks (2 MiB), Blosc with
        # lz4 and shuffle, "/" between chunk indices.
        write("ome.zarr/0", (1, 1, 1, 4096, 4096), "uint16", chunks=(1, 1, 1, 1024, 1024),
              zarr_format=2, chunk_key_encoding={"name": "v2", "separator": "/"},
              compressors=numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE)),
        # 4 MiB float32 chunks, zstd.
        write("chunks_4mib.zarr", (4096, 2048), "float32", chunks=(1024, 1024),
              compressors=ZstdCodec(level=1)),
        # 16 MiB uint8 chunks, uncompressed.
        write("chunks_16mib.zarr", (8192, 4096), "uint8", chunks=(4096, 4096),
              compressors=None),
        # 16 MiB chunks that compress as images do (see "smooth" above), gzip and zstd.
        write("gzip_16mib.zarr", (8192, 4096), "uint8", pattern="smooth", chunks=(4096, 4096),
              compressors=GzipCodec(level=5)),
        write("zstd_16mib.zarr", (8192, 4096), "uint8", pattern="smooth", chunks=(4096, 4096),
              compressors=ZstdCodec(level=3)),
        # Two 64 MiB shards of 2 MiB inner chunks (Blosc zstd), read by range.
        write("sharded_64mib.zarr", (8192, 8192), "uint16", chunks=(1024, 1024),
              shards=(4096, 8192),
              compressors=BloscCodec(cname="zstd", clevel=1, shuffle="shuffle")),
    ]
    (OUT / "ome.zarr" / ".zattrs").write_text(json.dumps({
        "multiscales": [{
            "version": "0.4",
            "axes": [{"name": n, "type": t} for n, t in
                     [("t", "time"), ("c", "channel"), ("z", "space"), ("y", "space"),
                      ("x", "space")]],
            "datasets": [{"path": "0", "coordinateTransformations": [
                {"type": "scale", "scale": [1, 1, 1, 1, 1]}]}],
        }]
    }))
    (OUT / "ome.zarr" / ".zgroup").write_text(json.dumps({"zarr_format": 2}))
    (OUT / "manifest.json").write_text(json.dumps({"arrays": arrays}, indent=1))


if __name__ == "__main__":
    main()
