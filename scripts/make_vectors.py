"""Writes the Zarr Vectors (ZVF) fixtures with the reference writer, zarr-vectors 0.9.2, and what its
own reader reads back from them (the expected values), into tests/fixtures/vectors/:

    points.zarr      a 3-D point cloud over negative and positive coordinates (so chunk keys are
                     shifted by `chunk_grid_origin`), a float32 and an RGB uint8 attribute per
                     point, object ids; vlen-bytes + zstd (the writer's default)
    polylines.zarr   2-D polylines crossing chunk edges, an attribute per vertex
    graph.zarr       a 3-D graph over negative coordinates with edges between chunks up to two
                     apart, a per-vertex and two per-edge attributes, object ids and an object
                     attribute; blosc (zstd, bitshuffle) compressed
    skeleton.zarr    two 3-D trees (links stored as implicit parents plus branch records)
    mesh.zarr        a triangulated height field whose faces cross chunks (winding matters),
                     raw encoding, a per-vertex attribute; uncompressed (vlen-bytes alone)
    pyramid.zarr     2-D points with object ids, groups of objects and an object attribute, and
                     two coarser levels built by zarr-vectors' own pyramid, with the links between
                     levels it writes (links/+1, links/-1); blosc compressed
    graph_sharded.zarr
                     graph.zarr with every spatial array rewritten by zarr-python as sharded
                     (sharding_indexed, 2 cells a side), as zarr-vectors packs cells for object
                     stores (it does not for local paths); read back by zarr-vectors
    mesh_consolidated.zarr
                     mesh.zarr with its metadata consolidated by zarr-python (the root zarr.json
                     lists every node: the link arrays need no listing); read back by zarr-vectors
    points_lzma.zarr points.zarr with every array rewritten by zarr-python with numcodecs' lzma
                     (decoded in zarr-wasm's second module); read back by zarr-vectors
    *.expected.json  for each store: the whole read and each object's read, from zarr-vectors

Run with `bash scripts/make_vectors.sh` (a venv of its own, pinned in vectors-requirements.txt).
Values are seeded, so the files are the same on every run.
"""

import json
import os
import shutil
from pathlib import Path

import numpy as np
import zarr_vectors as zv
from zarr_vectors import Layout, Schema
from zarr_vectors.core.arrays import read_chunk_vertices, read_links, read_object_attributes

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
    if r.edges is not None:
        out["edges"] = listed(r.edges)
    if r.faces is not None:
        out["faces"] = listed(r.faces)
    return out


def links_expected(path, level, names):
    """Every link of a level as its endpoints' positions, with its attributes, read by zarr-vectors'
    own link readers (records in input endpoint order, attribute rows aligned with them)."""
    from zarr_vectors.core.arrays import read_chunk_vertices, read_link_arrays, read_link_attributes

    lg = zv.open(str(path)).level(level).store
    chunks, vi = read_link_arrays(lg, delta=0)
    cells = {}
    out = []
    attrs = {n: read_link_attributes(lg, n) for n in names}
    for i in range(len(vi)):
        ends = []
        for c, v in zip(chunks[i].tolist(), vi[i].tolist()):
            if tuple(c) not in cells:
                cells[tuple(c)] = np.concatenate(read_chunk_vertices(lg, tuple(c), ndim=chunks.shape[2]))
            ends.append(listed(cells[tuple(c)][v]))
        out.append({"ends": ends, "attributes": {n: listed(a[i]) for n, a in attrs.items()}})
    return out


def blosc():
    """The writer's blosc (zstd, bitshuffle) pipeline: zarr-vectors 0.9.2 takes it from this variable
    (its Layout(compression=...) does not reach the vlen-bytes arrays)."""
    os.environ["ZARR_VECTORS_COMPRESSION"] = "blosc"


def zstd():
    os.environ.pop("ZARR_VECTORS_COMPRESSION", None)


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


def write_graph():
    path = OUT / "graph.zarr"
    shutil.rmtree(path, ignore_errors=True)
    rng = np.random.default_rng(13)
    n = 40
    positions = rng.uniform([-30, 0, 0], [30, 60, 60], size=(n, 3)).astype("float32")
    # Each vertex to one of its near neighbours in index order, and some chords across the graph.
    edges = [[i, (i + 1 + int(rng.integers(0, 3))) % n] for i in range(n)]
    edges += [[int(a), int(b)] for a, b in rng.integers(0, n, size=(20, 2)) if a != b]
    edges = np.array(edges)
    radius = rng.uniform(0.5, 2, n).astype("float32")
    weight = np.arange(len(edges), dtype="float32") / 4
    kind = (np.arange(len(edges)) % 3).astype("uint8")
    ids = np.arange(n) // 10
    schema = Schema(ndim=3, bounds=([-30, 0, 0], [30, 60, 60]), kind="graph", layout=Layout(cell_size=[20, 20, 20]))
    blosc()
    ds = zv.create(str(path), schema=schema)
    ds.add_graph(
        positions, edges, attributes={"radius": radius}, edge_attributes={"weight": weight, "kind": kind},
        object_ids=ids, object_attributes={"label": np.array([10, 11, 12, 13], dtype="int32")},
    )
    zstd()
    ds = zv.open(str(path))
    bbox = ([-25, 5, 5], [15, 45, 45])
    expected = {
        "whole": result(ds.read(attributes=["radius"])),
        "bbox": {"bbox": [list(bbox[0]), list(bbox[1])], **result(ds.read(bbox=bbox))},
        "links": links_expected(path, 0, ["weight", "kind"]),
        "object_attributes": {"label": listed(read_object_attributes(ds.level(0).store, "label"))},
    }
    (OUT / "graph.expected.json").write_text(json.dumps(expected))


def write_sharded_copy(name, side=2):
    """`name`.zarr with its spatial arrays (one vlen-bytes cell per spatial chunk) rewritten by
    zarr-python with `sharding_indexed`, `side` cells a side per shard: zarr-vectors writes that
    layout (its Layout(pack=True)) only for object-store URLs."""
    import zarr
    from zarr.codecs import VLenBytesCodec

    src, dst = OUT / f"{name}.zarr", OUT / f"{name}_sharded.zarr"
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    for meta in sorted(src.rglob("zarr.json")):
        doc = json.loads(meta.read_text())
        if doc.get("node_type") != "array" or doc.get("data_type") != "variable_length_bytes":
            continue
        if any(c != 1 for c in doc["chunk_grid"]["configuration"]["chunk_shape"]) or len(doc["shape"]) < 2:
            continue  # not a spatial array (one cell per chunk of space)
        rel = meta.parent.relative_to(src)
        values = zarr.open_array(str(src / rel), mode="r")[...]
        shutil.rmtree(dst / rel)
        out = zarr.create_array(
            str(dst / rel), shape=values.shape, dtype="bytes",
            chunks=(1,) * values.ndim, shards=tuple(min(side, n) for n in values.shape),
            serializer=VLenBytesCodec(), compressors=[{"name": "zstd", "configuration": {"level": 0, "checksum": False}}],
            fill_value=b"", attributes=doc.get("attributes", {}),
        )
        out[...] = values


def write_consolidated_copy(name):
    """`name`.zarr with its metadata consolidated by zarr-python into the root zarr.json
    (`consolidated_metadata`), as a store meant for static hosting carries its listing."""
    import zarr

    src, dst = OUT / f"{name}.zarr", OUT / f"{name}_consolidated.zarr"
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    zarr.consolidate_metadata(str(dst))


def write_lzma_copy(name):
    """`name`.zarr with every array rewritten by zarr-python with numcodecs' LZMA as compressor
    (same shapes, chunks, types, fill values and attributes)."""
    import zarr
    from zarr.codecs import VLenBytesCodec
    from zarr.codecs.numcodecs import LZMA

    src, dst = OUT / f"{name}.zarr", OUT / f"{name}_lzma.zarr"
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    for meta in sorted(src.rglob("zarr.json")):
        doc = json.loads(meta.read_text())
        if doc.get("node_type") != "array":
            continue
        rel = meta.parent.relative_to(src)
        source = zarr.open_array(str(src / rel), mode="r")
        values = source[...]
        shutil.rmtree(dst / rel)
        bytes_type = doc["data_type"] == "variable_length_bytes"
        out = zarr.create_array(
            str(dst / rel), shape=values.shape, dtype="bytes" if bytes_type else values.dtype,
            chunks=source.chunks, serializer=VLenBytesCodec() if bytes_type else "auto",
            compressors=[LZMA(preset=6)], fill_value=source.fill_value, attributes=doc.get("attributes", {}),
        )
        out[...] = values


def write_skeleton():
    path = OUT / "skeleton.zarr"
    shutil.rmtree(path, ignore_errors=True)
    rng = np.random.default_rng(17)
    positions = rng.uniform([-20, 0, 0], [20, 40, 40], size=(30, 3)).astype("float32")
    parent = [-1] + [int(rng.integers(max(0, i - 3), i)) for i in range(1, 15)]
    parent += [-1] + [15 + int(rng.integers(max(0, i - 3), i)) for i in range(1, 15)]
    edges = np.array([[i, p] for i, p in enumerate(parent) if p >= 0])
    schema = Schema(ndim=3, bounds=([-20, 0, 0], [20, 40, 40]), kind="skeleton", layout=Layout(cell_size=[10, 10, 10]))
    ds = zv.create(str(path), schema=schema)
    ds.add_graph(positions, edges, tree=True, object_ids=np.repeat([0, 1], 15),
                 attributes={"radius": rng.uniform(0.5, 2, 30).astype("float32")})
    ds = zv.open(str(path))
    (OUT / "skeleton.expected.json").write_text(json.dumps({"whole": result(ds.read(attributes=["radius"]))}))


def write_mesh():
    path = OUT / "mesh.zarr"
    shutil.rmtree(path, ignore_errors=True)
    # A 9 x 9 height field over [0, 40]^2, two triangles a square, counter-clockwise seen from +z.
    k = 9
    xs, ys = np.meshgrid(np.linspace(0, 40, k), np.linspace(0, 40, k), indexing="ij")
    zs = 10 + 8 * np.sin(xs / 7) * np.cos(ys / 9)
    vertices = np.stack([xs.ravel(), ys.ravel(), zs.ravel()], axis=1).astype("float32")
    faces = []
    for i in range(k - 1):
        for j in range(k - 1):
            a, b, c, d = i * k + j, (i + 1) * k + j, (i + 1) * k + j + 1, i * k + j + 1
            faces += [[a, b, c], [a, c, d]]
    schema = Schema(ndim=3, bounds=([0, 0, 0], [40, 40, 20]), kind="mesh", layout=Layout(cell_size=[15, 15, 10]))
    os.environ["ZARR_VECTORS_COMPRESSION"] = "none"  # the uncompressed variant: vlen-bytes only
    ds = zv.create(str(path), schema=schema)
    ds.add_mesh(vertices, np.array(faces), attributes={"height": vertices[:, 2].copy()})
    zstd()
    ds = zv.open(str(path))
    (OUT / "mesh.expected.json").write_text(json.dumps({"whole": result(ds.read(attributes=["height"]))}))


def write_pyramid():
    path = OUT / "pyramid.zarr"
    shutil.rmtree(path, ignore_errors=True)
    rng = np.random.default_rng(19)
    n = 240
    positions = rng.uniform(0, 64, size=(n, 2)).astype("float32")
    ids = np.arange(n) // 12
    schema = Schema(ndim=2, bounds=([0, 0], [64, 64]), layout=Layout(cell_size=[16, 16]))
    blosc()
    ds = zv.create(str(path), schema=schema)
    ds.add_points(positions, object_ids=ids, groups={0: [0, 1, 2], 1: [5, 9], 2: [19]},
                  object_attributes={"size": (np.arange(20) * 1.5).astype("float64")})
    ds = zv.open(str(path), mode="r+")
    ds.build_pyramid(factors=[(2, 1), (2, 1)])
    zstd()
    write_pyramid_expected(path)


def cross_links(ds, level, delta):
    """The links from `level` to `level + delta` (the pyramid's parents and children), in the order
    zarr-vectors reads them, each as its two endpoints' positions."""
    records = read_links(ds.level(level).store, delta=delta)
    ndim = 2
    vertices = {}

    def position(at, chunk, vertex):
        if (at, chunk) not in vertices:
            vertices[(at, chunk)] = np.concatenate(read_chunk_vertices(ds.level(at).store, chunk, ndim=ndim))
        return listed(vertices[(at, chunk)][vertex])

    return [[position(level, c0, v0), position(level + delta, c1, v1)] for (c0, v0), (c1, v1) in records]


def write_pyramid_expected(path):
    ds = zv.open(str(path))
    levels = []
    for level in ds.levels:
        levels.append({
            "whole": result(ds.read(level=level)),
            "objects": {str(i): result(ds.read(level=level, objects=[i])) for i in range(20)},
            "object_attributes": {"size": listed(read_object_attributes(ds.level(level).store, "size"))},
            "cross_links": {f"{d:+d}": cross_links(ds, level, d) for d in (1, -1) if 0 <= level + d < len(ds.levels)},
        })
    groups = [listed(ds.groups.get(name).members) for name in ds.groups.names()]
    (OUT / "pyramid.expected.json").write_text(json.dumps({"levels": levels, "groups": groups}))


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    write_points()
    write_polylines()
    write_graph()
    write_sharded_copy("graph")
    sharded = zv.open(str(OUT / "graph_sharded.zarr"))
    (OUT / "graph_sharded.expected.json").write_text(json.dumps({"whole": result(sharded.read(attributes=["radius"]))}))
    write_lzma_copy("points")
    lzma_copy = zv.open(str(OUT / "points_lzma.zarr"))
    (OUT / "points_lzma.expected.json").write_text(json.dumps({"whole": result(lzma_copy.read())}))
    write_skeleton()
    write_mesh()
    write_consolidated_copy("mesh")
    consolidated = zv.open(str(OUT / "mesh_consolidated.zarr"))
    (OUT / "mesh_consolidated.expected.json").write_text(json.dumps({"whole": result(consolidated.read(attributes=["height"]))}))
    write_pyramid()
    print(f"wrote {OUT}")
