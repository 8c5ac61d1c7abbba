"""Writes the viewer's sample images with zarr-python: OME-Zarr 0.5 multiscales (Zarr v3), axes
c, z, y, x, uint16, sharded with zstd inner chunks. Level k's pixel (y, x) is the mean of the
2**k x 2**k block of level 0 at (y * 2**k, x * 2**k), rounded down: integers throughout, so that
any pixel of any level is known exactly (tests/support/sample.mjs).

    python scripts/make_sample.py small   www/data/sample.ome.zarr: 2 x 2 x 1024 x 1024, 3 levels
                                          (committed; the viewer's tests read it)
    python scripts/make_sample.py large   www/data/large.ome.zarr: 2 x 3 x 8192 x 8192, 6 levels
                                          (made by scripts/start.sh when missing; not committed)

The picture is integer arithmetic only (no random numbers, no floats), so a test computes any
pixel exactly (tests/support/sample.mjs is the same function in JavaScript): four round
"organoids" (one per quadrant of the image) of cells on a 64-pixel grid, each cell at a place and
of a size hashed from its grid position, the channel and z; nuclei in channel 0, a cell wall
ring in channel 1, over a faint texture.
"""

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import zarr
from zarr.codecs import BytesCodec, ShardingCodec, ZstdCodec

ROOT = Path(__file__).resolve().parent.parent / "www" / "data"
PITCH = 64

SIZES = {
    # name: (store, channels, depth, side, levels, shard side, inner chunk side)
    "small": ("sample.ome.zarr", 2, 2, 1024, 3, 512, 128),
    "large": ("large.ome.zarr", 2, 3, 8192, 6, 2048, 256),
}
CHANNELS = [
    {"label": "nuclei", "color": "00FFFF", "window": {"start": 200, "end": 3000, "min": 0, "max": 65535}, "active": True},
    {"label": "cells", "color": "FF00FF", "window": {"start": 200, "end": 2600, "min": 0, "max": 65535}, "active": True},
]


def value(c, z, y, x, side):
    """The value at full resolution of an image `side` pixels wide (integer numpy arrays or ints
    broadcast together)."""
    cy, cx = y // PITCH, x // PITCH
    h = (cy * 7919 + cx * 104729 + 17) % 65536  # the same cell in both channels
    # The nucleus's centre and radius: the cell wall (radius + 5) stays inside the grid square.
    oy = 22 + (h // 33) % 21
    ox = 22 + h % 21
    r = 6 + (h // 7 + 3 * z) % 10
    dy, dx = y % PITCH - oy, x % PITCH - ox
    d2 = dy * dy + dx * dx
    texture = 180 + (x + 2 * y) % 37
    # The organoid of this quadrant: cells whose grid square's centre lies inside it.
    half = side // 2
    qy, qx = cy * PITCH + PITCH // 2 - half // 2 - (y // half) * half, cx * PITCH + PITCH // 2 - half // 2 - (x // half) * half
    radius = half * 2 // 5 + ((y // half) * 3 + (x // half) * 5) % 4 * (half // 40)
    organoid = qy * qy + qx * qx < radius * radius
    if c == 0:  # a nucleus: bright, brighter to the centre
        inside = organoid & (d2 < r * r)
        return np.where(inside, 1200 + (r * r - d2) * 12, texture)
    ring = organoid & (np.abs(d2 - (r + 5) * (r + 5)) < 4 * (r + 5))  # a cell wall around it
    body = organoid & (d2 < (r + 5) * (r + 5))
    return np.where(ring, 2400, np.where(body, 700 + (h % 300), texture))


def write_plane(arrays, c, z, side):
    """One plane of every level, in bands of rows (memory stays a few hundred MB at 8192 wide):
    level 0's values, then each level's block sums over the block size."""
    band = max(side // 4, 2 ** (len(arrays) - 1))
    x = np.arange(side, dtype=np.int64)[None, :]
    for top in range(0, side, band):
        y = np.arange(top, top + band, dtype=np.int64)[:, None]
        sums = value(c, z, y, x, side).astype(np.int64)
        for level, arr in enumerate(arrays):
            arr[c, z, top >> level : (top + band) >> level, :] = (sums // 4**level).astype(np.uint16)
            rows, cols = sums.shape[0] // 2, sums.shape[1] // 2
            sums = sums.reshape(rows, 2, cols, 2).sum(axis=(1, 3))


def write(name):
    store_name, channels, depth, side, levels, shard, inner = SIZES[name]
    final = ROOT / store_name
    # Written beside its place, then moved there: a half-written image is never taken for one.
    path = ROOT / f".{store_name}.partial"
    shutil.rmtree(path, ignore_errors=True)
    root = zarr.open_group(str(path), mode="w", zarr_format=3)
    datasets = []
    arrays = []
    for level in range(levels):
        step = 2**level
        n = side // step
        s, i = min(shard, n), min(inner, n)
        arrays.append(root.create_array(
            str(level),
            shape=(channels, depth, n, n),
            dtype="uint16",
            chunks=(1, 1, i, i),
            shards=(1, 1, s, s),
            compressors=ZstdCodec(level=3),
            fill_value=0,
            dimension_names=["c", "z", "y", "x"],
        ))
        datasets.append(
            {"path": str(level), "coordinateTransformations": [{"type": "scale", "scale": [1.0, 1.0, float(step), float(step)]}]}
        )
    for c in range(channels):
        for z in range(depth):
            write_plane(arrays, c, z, side)
            print(f"{store_name}: channel {c}, plane {z}", file=sys.stderr)
    root.attrs["ome"] = {
        "version": "0.5",
        "multiscales": [
            {
                "name": f"zarr-wasm sample ({name})",
                "axes": [
                    {"name": "c", "type": "channel"},
                    {"name": "z", "type": "space", "unit": "micrometer"},
                    {"name": "y", "type": "space", "unit": "micrometer"},
                    {"name": "x", "type": "space", "unit": "micrometer"},
                ],
                "datasets": datasets,
            }
        ],
        "omero": {"channels": CHANNELS[:channels], "rdefs": {"defaultZ": 0, "model": "color"}},
    }
    shutil.rmtree(final, ignore_errors=True)
    path.rename(final)
    print(json.dumps({"written": str(final)}))


if __name__ == "__main__":
    for name in sys.argv[1:] or ["small"]:
        write(name)
