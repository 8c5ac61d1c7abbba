#!/usr/bin/env python3
"""Writes OME-Zarr images with the two Python writers people use, and what ome-zarr-py reads of
them. Run with `bash scripts/make_fixtures.sh ome` (.venv-ome, scripts/ome-requirements.txt).

    tests/fixtures/ome/ome_zarr_py_04.zarr  ome-zarr-py, NGFF 0.4 on Zarr v2 (its Blosc zstd
                                            chunks), three levels, labels "cells" and "nuclei"
    tests/fixtures/ome/ome_zarr_py_05.zarr  ome-zarr-py, NGFF 0.5 on Zarr v3, the same
    tests/fixtures/ome/ngff_zarr_04.zarr    ngff-zarr, NGFF 0.4 on Zarr v2, with a translation and
                                            omero channels, labels "cells" added by ome-zarr-py
    tests/fixtures/ome/ngff_zarr_05.zarr    ngff-zarr, NGFF 0.5 on Zarr v3, sharded, the same
    tests/fixtures/ome.expected.json        for each image and each of its labels, what
                                            ome-zarr-py's Reader gives: axes, datasets' paths and
                                            coordinateTransformations, channels, label colours and
                                            properties, each level's shape, dtype and pixel sums

The pixels are integer arithmetic (no random numbers), so every run writes the same values and,
but for where ngff-zarr's parallel writes place inner chunks in a shard, the same bytes.
"""
import json
import shutil
from pathlib import Path

import ngff_zarr
import numpy as np
import ome_zarr
import zarr
from ome_zarr.format import FormatV04, FormatV05
from ome_zarr.io import parse_url
from ome_zarr.reader import Label, Multiscales, Reader
from ome_zarr.writer import write_image, write_labels

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"
OUT = FIXTURES / "ome"
MANIFEST = FIXTURES / "ome.expected.json"

# Image: channels, z, y, x.
SHAPE = (2, 4, 256, 256)
CHANNELS = [
    {"label": "nuclei", "color": "00FFFF", "active": True,
     "window": {"start": 100, "end": 2400, "min": 0, "max": 65535}},
    {"label": "membranes", "color": "FF00FF", "active": False,
     "window": {"start": 50, "end": 1800, "min": 0, "max": 65535}},
]
LABEL_COLORS = [{"label-value": 1, "rgba": [255, 0, 0, 255]}, {"label-value": 2, "rgba": [0, 128, 255, 200]}]
LABEL_PROPERTIES = [{"label-value": 1, "class": "round"}, {"label-value": 2, "class": "long", "area": 1234}]


def pixels():
    """uint16 czyx: a texture per channel and plane, bright discs on a grid."""
    c, z, y, x = np.indices(SHAPE, dtype=np.int64)
    disc = ((y % 64 - 32) ** 2 + (x % 64 - 32) ** 2) < (10 + 3 * z + 4 * c) ** 2
    texture = (x * 7 + y * 13 + z * 101 + c * 977) % 251
    return (texture + disc * (1500 + 200 * c)).astype(np.uint16)


def label_pixels(which):
    """uint32 zyx: 0 outside, 1 and 2 for two kinds of object, one per grid cell."""
    z, y, x = np.indices(SHAPE[1:], dtype=np.int64)
    r2 = (y % 64 - 32) ** 2 + (x % 64 - 32) ** 2
    inside = r2 < (12 + 2 * z) ** 2 if which == "cells" else r2 < (6 + z) ** 2
    kind = 1 + ((y // 64 + x // 64) % 2)
    return (inside * kind).astype(np.uint32)


def ome_zarr_py(path, fmt):
    root = zarr.open_group(str(path), mode="w", zarr_format=fmt.zarr_format)
    write_image(
        pixels(), root, scale_factors=(2, 4), method="nearest", fmt=fmt, axes="czyx",
        scale={"z": 0.5, "y": 0.25, "x": 0.25},
        axes_units={"z": "micrometer", "y": "micrometer", "x": "micrometer"},
        storage_options={"chunks": (1, 1, 128, 128)}, name="ome-zarr-py image",
        omero={"name": "ome-zarr-py image", "channels": CHANNELS, "rdefs": {"model": "color", "defaultZ": 2}},
    )
    for name in ("cells", "nuclei"):
        write_labels(
            label_pixels(name), root, name=name, scale_factors=(2, 4), fmt=fmt, axes="zyx",
            scale={"z": 0.5, "y": 0.25, "x": 0.25},
            axes_units={"z": "micrometer", "y": "micrometer", "x": "micrometer"},
            storage_options={"chunks": (1, 128, 128)},
            label_metadata={"colors": LABEL_COLORS, "properties": LABEL_PROPERTIES},
        )


def ngff_zarr_image(path, version):
    image = ngff_zarr.to_ngff_image(
        pixels(), dims=["c", "z", "y", "x"], scale={"z": 0.5, "y": 0.25, "x": 0.25},
        translation={"z": 1.0, "y": 10.0, "x": -5.0},
        axes_units={"z": "micrometer", "y": "micrometer", "x": "micrometer"}, name="ngff-zarr image",
    )
    multiscales = ngff_zarr.to_multiscales(
        image, scale_factors=[{"z": 1, "y": 2, "x": 2}, {"z": 1, "y": 4, "x": 4}], chunks={"c": 1, "z": 1, "y": 128, "x": 128},
        method=ngff_zarr.Methods.DASK_IMAGE_NEAREST,
    )
    multiscales.metadata.omero = ngff_zarr.Omero(channels=[
        ngff_zarr.OmeroChannel(color=ch["color"], label=ch["label"], window=ngff_zarr.OmeroWindow(**ch["window"]))
        for ch in CHANNELS
    ])
    shards = {"chunks_per_shard": {"c": 1, "z": 2, "y": 2, "x": 2}} if version == "0.5" else {}
    ngff_zarr.to_ngff_zarr(str(path), multiscales, version=version, **shards)
    # ngff-zarr writes no label images; ome-zarr-py adds them to its group, past the metadata
    # ngff-zarr consolidated, which is consolidated again after.
    fmt = FormatV05() if version == "0.5" else FormatV04()
    root = zarr.open_group(str(path), mode="r+", use_consolidated=False)
    write_labels(
        label_pixels("cells"), root, name="cells", scale_factors=(2, 4), fmt=fmt, axes="zyx",
        scale={"z": 0.5, "y": 0.25, "x": 0.25},
        axes_units={"z": "micrometer", "y": "micrometer", "x": "micrometer"},
        storage_options={"chunks": (1, 128, 128)},
        label_metadata={"colors": LABEL_COLORS, "properties": LABEL_PROPERTIES},
    )
    zarr.consolidate_metadata(str(path))


def jsonable(value):
    """ome-zarr-py's metadata as JSON: dict keys as strings, NumPy numbers as Python's."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def levels_of(node):
    """Each level's shape, dtype, sum of its values, and its values at a few places."""
    levels = []
    for data in node.data:
        values = np.asarray(data.compute())
        places = [tuple(int(i) for i in np.array(values.shape) * f // 8) for f in (0, 3, 5, 7)]
        levels.append({
            "shape": list(values.shape),
            "dtype": str(values.dtype),
            "sum": int(values.astype(np.int64).sum()),
            "values": [{"at": list(p), "value": int(values[p])} for p in places],
        })
    return levels


def read_back(path):
    """What ome-zarr-py's Reader gives for the image at `path` and for each of its labels."""
    nodes = list(Reader(parse_url(str(path)))())
    image = next(n for n in nodes if n.load(Multiscales) and not n.load(Label))
    labels = {}
    for node in nodes:
        if node.load(Label):
            meta = node.metadata
            labels[meta["name"]] = {
                "axes": meta["axes"],
                "paths": node.load(Multiscales).datasets,
                "coordinateTransformations": meta["coordinateTransformations"],
                "colors": meta["color"],
                "properties": meta["properties"],
                "levels": levels_of(node),
            }
    meta = image.metadata
    attrs = zarr.open_group(str(path), mode="r").attrs.asdict()
    ome = attrs.get("ome", attrs)
    version = ome.get("version") or ome["multiscales"][0].get("version")
    return jsonable({
        "version": version,
        "zarr_format": zarr.open_group(str(path), mode="r").metadata.zarr_format,
        "name": meta["name"],
        "axes": meta["axes"],
        "paths": image.load(Multiscales).datasets,
        "coordinateTransformations": meta["coordinateTransformations"],
        "channel_names": meta.get("channel_names"),
        "visible": meta.get("visible"),
        "contrast_limits": meta.get("contrast_limits"),
        "colormap": meta.get("colormap"),
        "levels": levels_of(image),
        "labels": labels,
    })


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    writers = {
        "ome_zarr_py_04.zarr": (f"ome-zarr-py {ome_zarr.__version__}", lambda p: ome_zarr_py(p, FormatV04())),
        "ome_zarr_py_05.zarr": (f"ome-zarr-py {ome_zarr.__version__}", lambda p: ome_zarr_py(p, FormatV05())),
        "ngff_zarr_04.zarr": (f"ngff-zarr {ngff_zarr.__version__}", lambda p: ngff_zarr_image(p, "0.4")),
        "ngff_zarr_05.zarr": (f"ngff-zarr {ngff_zarr.__version__}", lambda p: ngff_zarr_image(p, "0.5")),
    }
    manifest = {
        "about": "OME-Zarr images by ome-zarr-py and ngff-zarr, and what ome-zarr-py's Reader reads of "
        "them (scripts/make_ome_fixtures.py)",
        "images": {},
    }
    for name, (writer, write) in writers.items():
        path = OUT / name
        write(path)
        manifest["images"][name] = {"writer": writer, "zarr": f"zarr-python {zarr.__version__}", **read_back(path)}
    MANIFEST.write_text(json.dumps(manifest, indent=1) + "\n")


if __name__ == "__main__":
    main()
