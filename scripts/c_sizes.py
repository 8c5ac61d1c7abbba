"""The C libraries' compressed sizes for the chunks a test wrote: each chunk of each v2 array
listed is decoded by numcodecs, encoded again by numcodecs (C underneath: libzstd, zlib, lz4,
c-blosc on one thread) with the array's compressor, and its bytes counted. Prints one JSON object:
per array path, the bytes zarr-wasm wrote and the bytes C wrote, over all its chunks.

    python scripts/c_sizes.py STORE_DIR PATH...
"""

import json
import sys
from pathlib import Path

import numcodecs
import numpy as np
from numcodecs import blosc

blosc.use_threads = False
blosc.set_nthreads(1)


def sizes(root, path):
    meta = json.loads((root / path / ".zarray").read_text())
    codec = numcodecs.get_codec(meta["compressor"])
    dtype = np.dtype(meta["dtype"])
    ours = c = 0
    for chunk in sorted((root / path).iterdir()):
        if chunk.name.startswith("."):
            continue
        stored = chunk.read_bytes()
        raw = np.frombuffer(codec.decode(stored), dtype=dtype)
        ours += len(stored)
        c += len(codec.encode(raw))
    return {"ours": ours, "c": c}


def main():
    root = Path(sys.argv[1])
    print(json.dumps({path: sizes(root, path) for path in sys.argv[2:]}))


if __name__ == "__main__":
    main()
