"""The C encoders' speed for `npm run bench`'s write table: the benchmark's 2048 x 2048 uint16 image
(bench/data/bench.zarr/raw), in chunks of 256 x 256, encoded by the C libraries numcodecs wraps
(libzstd, c-blosc with one thread) natively, for each codec of the table given as the v3 codec
list after `bytes`. Prints one JSON object: per codec name, the median time to encode every chunk,
the encoded bytes in all, MB/s (decimal megabytes of the image per second), and the libraries'
versions.

    python bench/native_write.py bench/data/bench.zarr/raw CODECS_JSON [runs]

CODECS_JSON is a list of {"name": ..., "codecs": [...]} as bench/write.mjs's WRITE_CODECS.
"""

import json
import sys
import time
from pathlib import Path

import numcodecs
import numpy as np
from numcodecs import blosc

# One thread, as the wasm module encodes: c-blosc would otherwise split blocks across cores.
blosc.use_threads = False
blosc.set_nthreads(1)

SHUFFLES = {"noshuffle": blosc.NOSHUFFLE, "shuffle": blosc.SHUFFLE, "bitshuffle": blosc.BITSHUFFLE}


def c_codec(v3_codec):
    """The numcodecs codec (C underneath) for a v3 bytes-to-bytes codec."""
    name, config = v3_codec["name"], v3_codec.get("configuration", {})
    if name == "zstd":
        return numcodecs.Zstd(level=config.get("level", 0), checksum=config.get("checksum", False))
    if name == "blosc":
        return numcodecs.Blosc(
            cname=config["cname"],
            clevel=config["clevel"],
            shuffle=SHUFFLES[config["shuffle"]],
            blocksize=config.get("blocksize", 0),
        )
    raise ValueError(f"no C encoder for {name}")


def chunks(raw):
    """The image's chunks as uint16 arrays (each 256 x 256, as stored)."""
    out = []
    for path in sorted((raw / "c").glob("*/*")):
        out.append(np.frombuffer(path.read_bytes(), dtype="<u2").reshape(256, 256).copy())
    return out


def main():
    raw = Path(sys.argv[1])
    table = json.loads(sys.argv[2])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    data = chunks(raw)
    total = sum(c.nbytes for c in data)
    z = numcodecs.zstd
    results = {
        "numcodecs": numcodecs.__version__,
        "libraries": {
            "libzstd": f"{z.MAJOR_VERSION_NUMBER}.{z.MINOR_VERSION_NUMBER}.{z.MICRO_VERSION_NUMBER}",
            "c-blosc": blosc.VERSION_STRING,
        },
        "codecs": {},
    }
    for row in table:
        if not row["codecs"]:
            continue  # raw: nothing to encode
        codec = c_codec(row["codecs"][0])
        times = []
        size = 0
        for _ in range(runs):
            t0 = time.perf_counter()
            encoded = [codec.encode(c) for c in data]
            times.append(time.perf_counter() - t0)
            size = sum(len(e) for e in encoded)
        ms = sorted(times)[len(times) // 2] * 1000
        results["codecs"][row["name"]] = {"ms": ms, "bytes": size, "mbs": total / 1e6 / (ms / 1000)}
    print(json.dumps(results))


main()
