#!/usr/bin/env python3
"""Writes the committed Icechunk fixtures: small repositories written by the icechunk Python
package, and the values icechunk itself reads back from them.

Run with `bash scripts/make_fixtures.sh icechunk` (venv .venv-icechunk, Python >= 3.12,
scripts/icechunk-requirements.txt). Outputs, in tests/fixtures/icechunk/:
  v2/                 a repository in the current on-disk format (spec version 2): history
                      c1 <- c2 <- c3 on main, tag "v1" at c1, branch "dev" from c2 with one
                      commit d1. Arrays with native chunks (chunks/), chunks small enough to be
                      inlined in the manifest, chunks never written (the fill value), a sharded
                      array, groups with attributes, and an array of virtual chunks: byte ranges
                      of virtual.bin under the container https://example.org/icechunk/ (the
                      tests map that prefix to the fixture server)
  v1/                 a repository in spec version 1 (what icechunk 1.x reads: refs/ files, no
                      repo file), written by the same library with spec_version=1: main with two
                      commits, tag "first", branch "side"
  virtual.bin         the bytes the virtual chunks point into (raw little-endian float32)
  ../icechunk.expected.json
                      per repository, per version (branch, tag, snapshot id): the snapshot id it
                      resolves to and every array's shape, dtype, fill value and values in C order
                      as icechunk reads them (virtual chunks: as numpy reads virtual.bin, since
                      icechunk here cannot fetch https://example.org). Virtual chunks are at
                      absolute URLs, and two at vcc://data/virtual.bin (the container's name)
"""
import json
import pathlib
import shutil

import icechunk
import numpy as np
import zarr

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
OUT = FIXTURES / "icechunk"
EXPECTED = FIXTURES / "icechunk.expected.json"
CONTAINER = "https://example.org/icechunk/"
RNG = np.random.default_rng(20261127)
WRITER = f"icechunk {icechunk.__version__}, zarr {zarr.__version__}"


def config(spec_version):
    c = icechunk.RepositoryConfig.default()
    c.inline_chunk_threshold_bytes = 64
    # "split"'s manifests each cover two rows of its chunk grid; in spec 2, virtual chunk
    # locations are zstd-compressed with a trained dictionary once a manifest has 8 of them.
    splitting = icechunk.ManifestSplittingConfig.from_dict(
        {icechunk.ManifestSplitCondition.name_matches("split"): {icechunk.ManifestSplitDimCondition.Axis(0): 2}}
    )
    compression = (
        icechunk.ManifestVirtualChunkLocationCompressionConfig(min_num_chunks=8)
        if spec_version == 2
        else None
    )
    c.manifest = icechunk.ManifestConfig(
        splitting=splitting, virtual_chunk_location_compression=compression
    )
    # In spec 2 the container has a name: chunks can then be at vcc://data/<path>.
    c.set_virtual_chunk_container(
        icechunk.VirtualChunkContainer(
            CONTAINER, icechunk.http_store(), name="data" if spec_version == 2 else None
        )
    )
    return c


def open_repo(path, spec_version):
    if path.exists():
        shutil.rmtree(path)
    return icechunk.Repository.create(
        icechunk.local_filesystem_storage(str(path)),
        config=config(spec_version),
        spec_version=spec_version,
        authorize_virtual_chunk_access={CONTAINER: icechunk.credentials.HttpAccess},
    )


def noise(shape, dtype):
    """Values that zstd cannot squeeze under the inline threshold."""
    return RNG.integers(-(2**30), 2**30, size=shape).astype(dtype)


def write_virtual_bin():
    """virtual.bin: two float32 (2, 8) chunks back to back after a 16-byte preamble, and a third
    one after a gap: the virtual array's chunks are byte ranges of it."""
    a = np.arange(48, dtype="<f4").reshape(6, 8) / 4 - 3
    body = b"PREAMBLE........" + a[0:2].tobytes() + a[2:4].tobytes() + b"gap!" * 4 + a[4:6].tobytes()
    (OUT / "virtual.bin").write_bytes(body)
    offsets = [16, 16 + 64, 16 + 128 + 16]
    return a, offsets


def first_commit(repo, virtual=None):
    session = repo.writable_session("main")
    root = zarr.group(store=session.store, attributes={"title": "zarr-wasm icechunk fixture"})
    g = root.create_group("grid", attributes={"units": "m", "levels": [1, 2, 3]})
    native = g.create_array(
        "native", shape=(40, 30), chunks=(20, 15), dtype="int32", fill_value=-1,
        dimension_names=["y", "x"],
    )
    native[:] = noise((40, 30), "int32")
    small = root.create_array("small", shape=(10,), chunks=(5,), dtype="int16", fill_value=0)
    small[:] = np.arange(10, dtype="int16") * 3
    holes = root.create_array(
        "holes", shape=(12, 12), chunks=(4, 4), dtype="float64", fill_value=np.nan
    )
    holes[0:4, 0:4] = noise((4, 4), "float64") / 7
    holes[8:12, 4:8] = noise((4, 4), "float64") / 3
    sharded = root.create_array(
        "sharded", shape=(16, 16), chunks=(4, 4), shards=(8, 8), dtype="uint16", fill_value=7,
    )
    sharded[:, :12] = noise((16, 12), "uint16")
    split = root.create_array(
        "split", shape=(32, 32), chunks=(8, 8), dtype="float64", fill_value=0
    )
    split[:] = noise((32, 32), "float64") / 5
    if virtual is not None:
        a, offsets = virtual
        # 32 one-element chunks, each 4 bytes of virtual.bin's first two rows.
        many = root.create_array(
            "virtual_many", shape=(32,), chunks=(1,), dtype="float32", fill_value=0,
            compressors=None,
        )
        for i in range(32):
            session.store.set_virtual_ref(
                f"virtual_many/c/{i}", CONTAINER + "virtual.bin", offset=16 + 4 * i, length=4,
                validate_container=True,
            )
        assert many.shape == (32,)
        # Two chunks at a location relative to the named container.
        named = root.create_array(
            "virtual_named", shape=(4, 8), chunks=(2, 8), dtype="float32", fill_value=0,
            compressors=None,
        )
        for i, off in enumerate(offsets[:2]):
            session.store.set_virtual_ref(
                f"virtual_named/c/{i}/0", "vcc://data/virtual.bin", offset=off, length=64,
                validate_container=True,
            )
        assert named.shape == (4, 8)
        v = root.create_array(
            "virtual", shape=(6, 8), chunks=(2, 8), dtype="float32", fill_value=0,
            compressors=None,
        )
        for i, off in enumerate(offsets):
            session.store.set_virtual_ref(
                f"virtual/c/{i}/0", CONTAINER + "virtual.bin", offset=off, length=64,
                validate_container=True,
            )
        assert v.shape == a.shape
    return session.commit("c1: the first arrays")


def describe(repo, version, virtual):
    """What icechunk reads at `version` (branch=, tag= or snapshot_id=)."""
    session = repo.readonly_session(**version)
    root = zarr.open_group(store=session.store, mode="r")
    arrays = {}
    groups = {}

    def walk(group, path):
        groups[path] = dict(group.attrs)
        for name, node in group.members():
            p = f"{path}/{name}".lstrip("/")
            if isinstance(node, zarr.Group):
                walk(node, p)
            else:
                if p == "virtual":
                    values = virtual[0]
                elif p == "virtual_named":
                    values = virtual[0][:4]
                elif p == "virtual_many":
                    values = virtual[0].ravel()[:32]
                else:
                    values = node[...]
                fill = node.metadata.fill_value
                arrays[p] = {
                    "shape": list(node.shape),
                    "dtype": str(node.dtype),
                    "fill_value": None if isinstance(fill, float) and np.isnan(fill) else fill.item()
                    if hasattr(fill, "item") else fill,
                    "attributes": dict(node.attrs),
                    "values": [None if isinstance(x, float) and np.isnan(x) else x
                               for x in values.ravel().tolist()],
                }

    walk(root, "")
    return {"snapshot": session.snapshot_id, "groups": groups, "arrays": arrays}


def make_v2():
    path = OUT / "v2"
    virtual = write_virtual_bin()
    repo = open_repo(path, 2)
    c1 = first_commit(repo, virtual)
    repo.create_tag("v1", c1)

    s = repo.writable_session("main")
    root = zarr.open_group(store=s.store, mode="r+")
    root["grid/native"][0:20, 0:15] = np.full((20, 15), 42, dtype="int32")
    root["small"][0:5] = np.array([9, 8, 7, 6, 5], dtype="int16")
    root.attrs["revision"] = 2
    c2 = s.commit("c2: one native chunk and one inline chunk rewritten")

    s = repo.writable_session("main")
    root = zarr.open_group(store=s.store, mode="r+")
    root["holes"][4:8, 4:8] = noise((4, 4), "float64")
    extra = root.create_array("later", shape=(3,), chunks=(3,), dtype="uint8", fill_value=1)
    extra[:] = np.array([3, 2, 1], dtype="uint8")
    c3 = s.commit("c3: a chunk filled, an array added")

    repo.create_branch("dev", c2)
    s = repo.writable_session("dev")
    root = zarr.open_group(store=s.store, mode="r+")
    root["grid/native"][20:40, 15:30] = np.zeros((20, 15), dtype="int32")
    del root["sharded"]
    d1 = s.commit("d1: on dev, a chunk zeroed and an array deleted")

    versions = {
        "branch:main": {"branch": "main"},
        "tag:v1": {"tag": "v1"},
        f"snapshot:{c2}": {"snapshot_id": c2},
        "branch:dev": {"branch": "dev"},
    }
    out = {k: describe(repo, v, virtual) for k, v in versions.items()}
    assert out["branch:main"]["snapshot"] == c3
    assert out["tag:v1"]["snapshot"] == c1
    assert out["branch:dev"]["snapshot"] == d1
    return out


def make_v1():
    path = OUT / "v1"
    repo = open_repo(path, 1)
    c1 = first_commit(repo)
    repo.create_tag("first", c1)
    s = repo.writable_session("main")
    root = zarr.open_group(store=s.store, mode="r+")
    root["small"][5:10] = np.array([1, 1, 2, 3, 5], dtype="int16")
    s.commit("c2 (spec 1)")
    repo.create_branch("side", c1)
    s = repo.writable_session("side")
    root = zarr.open_group(store=s.store, mode="r+")
    root["holes"][:] = 0.5
    s.commit("s1 (spec 1)")
    versions = {
        "branch:main": {"branch": "main"},
        "tag:first": {"tag": "first"},
        "branch:side": {"branch": "side"},
    }
    out = {k: describe(repo, v, None) for k, v in versions.items()}
    assert repo.spec_version == icechunk.SpecVersion.v1
    return out


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    expected = {
        "writer": f"{WRITER} (scripts/make_icechunk_fixtures.py)",
        "container": CONTAINER,
        "repositories": {"v2": make_v2(), "v1": make_v1()},
    }
    EXPECTED.write_text(json.dumps(expected, indent=1) + "\n")
    # The local writer leaves nothing the reader needs beyond these; list what it wrote.
    for f in sorted(OUT.rglob("*")):
        if f.is_file():
            print(f.relative_to(FIXTURES), f.stat().st_size)


if __name__ == "__main__":
    main()
