"""The C ceiling for `npm run bench`: decodes every chunk of each array in bench/data/bench.zarr
with the C library numcodecs wraps (libzstd, zlib through Python's zlib module, liblz4, c-blosc
with one thread), natively, no HTTP and no assembly. Prints one JSON object: per array, the median
time to decode all of its chunks, the decoded bytes, the library's name and version, and
numcodecs' version.

    python bench/native_c.py bench/data/bench.zarr [runs]
"""

import json
import sys
import time
import zlib
from pathlib import Path

import numcodecs
from numcodecs import blosc

# One thread, as the wasm module decodes: c-blosc would otherwise split blocks across cores.
blosc.use_threads = False
blosc.set_nthreads(1)


def c_codec(v3_codec):
    """The numcodecs codec (C underneath) for a v3 bytes-to-bytes codec, and the library's name."""
    name, config = v3_codec["name"], v3_codec.get("configuration", {})
    if name == "zstd":
        z = numcodecs.zstd
        version = f"{z.MAJOR_VERSION_NUMBER}.{z.MINOR_VERSION_NUMBER}.{z.MICRO_VERSION_NUMBER}"
        return numcodecs.Zstd(), f"libzstd {version}"
    if name == "gzip":
        return numcodecs.GZip(), f"zlib {zlib.ZLIB_RUNTIME_VERSION}"
    if name == "numcodecs.zlib":
        return numcodecs.Zlib(), f"zlib {zlib.ZLIB_RUNTIME_VERSION}"
    if name == "numcodecs.lz4":
        return numcodecs.LZ4(), f"liblz4 {numcodecs.lz4.VERSION_STRING}"
    if name == "blosc":
        return numcodecs.Blosc(), f"c-blosc {blosc.VERSION_STRING}"
    raise ValueError(f"no C codec for {name}")


def main():
    root = Path(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    results = {}
    for meta_path in sorted(root.glob("*/zarr.json")):
        meta = json.loads(meta_path.read_text())
        compressors = [c for c in meta["codecs"] if c["name"] != "bytes"]
        if not compressors:
            continue  # nothing to decode: the uncompressed array has no C ceiling
        codec, library = c_codec(compressors[0])
        chunks = [p.read_bytes() for p in sorted((meta_path.parent / "c").rglob("*")) if p.is_file()]
        times, decoded = [], 0
        for _ in range(runs + 2):
            start = time.perf_counter()
            decoded = sum(len(codec.decode(chunk)) for chunk in chunks)
            times.append((time.perf_counter() - start) * 1e3)
        timed = sorted(times[2:])
        results[meta_path.parent.name] = {
            "ms": timed[len(timed) // 2],
            "bytes": decoded,
            "library": library,
            "numcodecs": numcodecs.__version__,
        }
    print(json.dumps(results))


if __name__ == "__main__":
    main()
