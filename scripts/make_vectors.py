"""Writes the Zarr Vectors (ZVF) fixtures with the reference writer, zarr-vectors 0.9.2, and what its
own reader reads back from them (the expected values), into tests/fixtures/vectors/:

    points.zarr      a 3-D point cloud over negative and positive coordinates (so chunk keys are
                     shifted by `chunk_grid_origin`), a float32 and an RGB uint8 attribute per
                     point, object ids; vlen-bytes + zstd (the writer's default)
    polylines.zarr   2-D polylines crossing chunk edges, an attribute per vertex
    *.expected.json  for each store: the whole read and each object's read, from zarr-vectors

Run with `bash scripts/make_vectors.sh` (a venv of its own, pinned in vectors-requirements.txt).
Values are seeded, so the files are the same on every run.
"""

import json
import shutil
from pathlib import Path

import numpy as np
import zarr_vectors as zv
from zarr_vectors import Layout, Schema

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "vectors"


def listed(a):
    return np.asarray(a).tolist()


def result(r):
    """A zarr-vectors ReadResult as plain JSON."""
    out = {
        "vertex_count": int(r.vertex_count),
        "positions": listed(r.positions),
        "attributes": {k: listed(v) for k, v in (r.attributes or {}).items()},
    }
    if r.object_ids is not None:
        out["object_ids"] = listed(r.object_ids)
    if r.kind in ("polyline", "streamline", "line") and r.polylines is not None:
        out["polylines"] = [listed(p) for p in r.polylines]
    return out


def write_points():
    path = OUT / "points.zarr"
    shutil.rmtree(path, ignore_errors=True)
    rng = np.random.default_rng(7)
    n = 300
    positions = rng.uniform([-50, 0, 0], [50, 100, 100], size=(n, 3)).astype("float32")
    intensity = rng.uniform(0, 1, n).astype("float32")
    colour = rng.integers(0, 256, size=(n, 3)).astype("uint8")
    ids = (np.arange(n) * 7) % 11
    schema = Schema(ndim=3, bounds=([-50, 0, 0], [50, 100, 100]), layout=Layout(cell_size=[25, 25, 25]))
    ds = zv.create(str(path), schema=schema)
    ds.add_points(positions, attributes={"intensity": intensity, "colour": colour}, object_ids=ids)
    ds = zv.open(str(path))
    expected = {"whole": result(ds.read()), "objects": {str(i): result(ds.read(objects=[i])) for i in range(11)}}
    (OUT / "points.expected.json").write_text(json.dumps(expected))


def write_polylines():
    path = OUT / "polylines.zarr"
    shutil.rmtree(path, ignore_errors=True)
    rng = np.random.default_rng(11)
    lines = []
    for i in range(12):
        start = rng.uniform(0, 60, size=2)
        steps = rng.normal(0, 4, size=(5 + i, 2)).cumsum(axis=0)
        lines.append(np.clip(start + steps, 0, 99).astype("float32"))
    width = [np.full(len(line), i, dtype="float32") for i, line in enumerate(lines)]
    schema = Schema(ndim=2, bounds=([0, 0], [100, 100]), kind="polyline", layout=Layout(cell_size=[20, 20]))
    ds = zv.create(str(path), schema=schema)
    ds.add_polylines(lines, attributes={"width": width})  # one array per polyline
    ds = zv.open(str(path))
    expected = {"whole": result(ds.read()), "objects": {str(i): result(ds.read(objects=[i])) for i in range(12)}}
    (OUT / "polylines.expected.json").write_text(json.dumps(expected))


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    write_points()
    write_polylines()
    print(f"wrote {OUT}")
