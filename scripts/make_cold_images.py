#!/usr/bin/env python3
"""Writes the images of the cold-page benchmark's first views (bench/cold.mjs, issue 50) with
ome-zarr-py, as the OME-Zarr published today is written. Run by `npm run bench` when missing
(`bash scripts/make_fixtures.sh cold`, .venv-ome, scripts/ome-requirements.txt); not committed.

Each is the benchmark's 2048 x 2048 uint16 image (bench/data/bench.zarr/raw) with levels down to
64 x 64 (scale factors 2 to 32, ome-zarr-py's default resize):

    target/bench/images/ome_v2_lz4.zarr     NGFF 0.4 on Zarr v2, Blosc lz4 (shuffle) chunks of 256
    target/bench/images/ome_v2_zlib.zarr    NGFF 0.4 on Zarr v2, zlib level 5 chunks of 256
    target/bench/images/v3_gzip.zarr        NGFF 0.5 on Zarr v3, gzip level 5 chunks of 256
    target/bench/images/v3_lz4.zarr         NGFF 0.5 on Zarr v3, numcodecs.lz4 chunks of 256
    target/bench/images/v3_sharded_zstd.zarr  NGFF 0.5 on Zarr v3, shards of 1024 x 1024 holding
                                            zstd level 3 chunks of 128 x 128

and target/bench/images/cold.json: for each, its levels' paths and shapes, and its chunk shape.
"""
import json
import shutil
import sys
from pathlib import Path

import numcodecs
import ome_zarr
import zarr
from ome_zarr.format import FormatV04, FormatV05
from ome_zarr.writer import write_image
from zarr.codecs import GzipCodec, ZstdCodec
from zarr.codecs import numcodecs as nc

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "target" / "bench" / "images"

IMAGES = {
    "ome_v2_lz4": (FormatV04(), {"chunks": (256, 256),
                                 "compressor": numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE)}),
    "ome_v2_zlib": (FormatV04(), {"chunks": (256, 256), "compressor": numcodecs.Zlib(level=5)}),
    "v3_gzip": (FormatV05(), {"chunks": (256, 256), "compressors": [GzipCodec(level=5)]}),
    "v3_lz4": (FormatV05(), {"chunks": (256, 256), "compressors": [nc.LZ4(acceleration=1)]}),
    "v3_sharded_zstd": (FormatV05(), {"chunks": (128, 128), "shards": (1024, 1024),
                                      "compressors": [ZstdCodec(level=3)]}),
}


def main():
    image = zarr.open_array(ROOT / "bench" / "data" / "bench.zarr" / "raw", mode="r")[:]
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    manifest = {}
    for name, (fmt, options) in IMAGES.items():
        path = OUT / f"{name}.zarr"
        group = zarr.open_group(path, mode="w", zarr_format=2 if fmt.version == "0.4" else 3)
        write_image(image, group, scale_factors=[2, 4, 8, 16, 32], fmt=fmt, axes="yx",
                    storage_options=options)
        attrs = group.attrs.asdict()
        multiscales = (attrs.get("ome") or attrs)["multiscales"][0]
        levels = [d["path"] for d in multiscales["datasets"]]
        manifest[name] = {
            "levels": levels,
            "shapes": [list(group[p].shape) for p in levels],
            "chunks": list(group[levels[0]].chunks),
            "zarrFormat": group.metadata.zarr_format,
        }
    (OUT / "cold.json").write_text(json.dumps({
        "writer": f"ome-zarr-py {ome_zarr.__version__}, zarr-python {zarr.__version__}, numcodecs {numcodecs.__version__}",
        "images": manifest,
    }, indent=1) + "\n")
    print("cold-page images written to", OUT, file=sys.stderr)


if __name__ == "__main__":
    main()
