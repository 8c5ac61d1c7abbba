// What the viewer needs of an image: its pyramid levels (OME-Zarr `multiscales`, NGFF 0.4 in the
// group's attributes or 0.5 under `ome`), its axes, and its channels' names, colours and contrast
// windows (`omero`). A plain array is an image of one level.
import * as zw from "zarr-wasm";

/** Opens the image at `url` (a group with multiscales, or an array): levels finest first. */
export async function openImage(url) {
  const node = await zw.open(url);
  if (node.kind === "array")
    return describe(url, [{ path: "", arr: node }], axesFromNames(node), {});
  const ome = node.attrs.ome ?? node.attrs;
  const multiscale = ome.multiscales?.[0];
  if (!multiscale)
    throw new Error(
      `${url} is a group without OME-Zarr multiscales metadata: open an array or an image`,
    );
  const levels = [];
  for (const dataset of multiscale.datasets)
    levels.push({ path: dataset.path, arr: await node.open(dataset.path) });
  const axes = (multiscale.axes ?? []).map((a) => (typeof a === "string" ? { name: a } : a));
  return describe(
    url,
    levels,
    axes.length === levels[0].arr.shape.length ? axes : axesFromNames(levels[0].arr),
    ome.omero ?? {},
  );
}

/** Axes of an array without OME metadata: its dimension names; unnamed 5-D is OME's t c z y x. */
function axesFromNames(arr) {
  const named = arr.dimensionNames?.some((n) => n);
  const names = named
    ? arr.dimensionNames
    : arr.shape.length === 5
      ? ["t", "c", "z", "y", "x"]
      : arr.shape.map(() => null);
  return names.map((name) => ({ name: name ?? "" }));
}

function describe(url, levels, axes, omero) {
  const ndim = levels[0].arr.shape.length;
  if (ndim < 2)
    throw new Error(`${url}: the array has ${ndim} dimension(s); an image has at least 2`);
  const [height, width] = levels[0].arr.shape.slice(-2);
  // Axes before the last two: channels, and sliders (z, t and any other).
  const extra = axes.slice(0, ndim - 2).map((a, i) => ({
    index: i,
    name: a.name || `dim ${i}`,
    size: levels[0].arr.shape[i],
    channel: a.type === "channel" || a.name === "c",
  }));
  const channelAxis = extra.find((a) => a.channel) ?? null;
  const nChannels = channelAxis ? channelAxis.size : 1;
  const channels = Array.from({ length: nChannels }, (_, i) => {
    const c = omero.channels?.[i] ?? {};
    return {
      label: c.label ?? (nChannels > 1 ? `channel ${i}` : "values"),
      color: /^[0-9a-f]{6}$/i.test(c.color ?? "")
        ? c.color
        : nChannels > 1
          ? ["00FFFF", "FF00FF", "FFFF00", "FFFFFF"][i % 4]
          : "FFFFFF",
      window: c.window && Number.isFinite(c.window.start) ? [c.window.start, c.window.end] : null,
      omeroWindow: c.window ?? null,
      active: c.active ?? i < 4,
    };
  });
  return {
    url,
    ndim,
    shape: [height, width],
    dtype: levels[0].arr.dtype,
    axes: extra,
    channelAxis,
    channels,
    levels: levels.map(({ path, arr }) => {
      const [h, w] = arr.shape.slice(-2);
      const chunk = (arr.innerChunks ?? arr.chunks ?? [256, 256]).slice(-2);
      // Tiles of the chunk (or inner chunk) size, within reason: huge chunks are read in parts.
      const tile = chunk.map((n) => Math.max(64, Math.min(1024, n)));
      // `full`: every axis, for the other axes' positions on this level (z may shrink too).
      return {
        path,
        shape: [h, w],
        full: arr.shape,
        downsample: width / w,
        downsampleY: height / h,
        tile,
        info: arr,
      };
    }),
  };
}
