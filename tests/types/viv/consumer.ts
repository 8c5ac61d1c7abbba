// zarr-wasm/viv with Viv's own types: what openPixelSources gives is what Viv's layers take as
// their `loader` (@vivjs/types' PixelSource, 0.21). Compiled by `tsc --strict` (its own tsconfig:
// @vivjs/types' dependencies' declarations are not checked, as for ../zarrita; ../consumer.ts
// checks zarr-wasm's declarations themselves), then run by tests/node/types.test.mjs.
import type { PixelData, PixelSource as VivPixelSource } from "@vivjs/types";
import { ZarrArray, open } from "zarr-wasm";
import { PixelSource, SIGNAL_ABORTED, openPixelSources } from "zarr-wasm/viv";

/** The sample's levels as Viv's loader, a tile of each, and one level built by hand. */
export async function consumeViv(url: string): Promise<{
  shapes: number[][];
  dtype: string;
  labels: string[];
  firstValues: number[];
  widths: number[];
  aborted: string;
  handMade: { labels: string[]; tileSize: number; height: number };
}> {
  const { data, metadata } = await openPixelSources(url);
  if (!Array.isArray(metadata.multiscales)) throw new Error("expected multiscales");
  // Viv's MultiscaleImageLayer takes `loader: PixelSource<string[]>[]`.
  const loader: VivPixelSource<string[]>[] = data;
  const tiles: PixelData[] = await Promise.all(
    loader.map((level) => level.getTile({ x: 1, y: 1, selection: { c: 1, z: 0 } })),
  );
  const level2 = await open(url, { path: "2" });
  if (!(level2 instanceof ZarrArray)) throw new Error("expected an array");
  const handMade: VivPixelSource<string[]> = new PixelSource(level2, {
    labels: ["channel", "plane", "y", "x"],
    tileSize: 256,
  });
  const plane = await handMade.getRaster({ selection: { channel: 0, plane: 1 } });
  return {
    shapes: loader.map((level) => level.shape),
    dtype: loader[0].dtype,
    labels: [...loader[0].labels],
    firstValues: Array.from(tiles[0].data.subarray(0, 3)),
    widths: tiles.map((t) => t.width),
    aborted: SIGNAL_ABORTED,
    handMade: { labels: [...handMade.labels], tileSize: handMade.tileSize, height: plane.height },
  };
}
