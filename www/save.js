// "Save as OME-Zarr": the image on screen, whatever its format, written as sharded Zarr v3 with
// OME-Zarr 0.5 metadata, every level (and its label images), into a folder the user picks, or
// the origin private file system (OPFS) where the browser has no folder picker. zarr-wasm/convert
// does the work (imported at the first save: a page that only views never downloads it), in
// regions of whole shards, so that memory holds a few shards whatever the image's size.
import { createGroup, FileSystemHandleStore } from "zarr-wasm";

/** The shards written, along y and x: a tile server's favourite, 4096 x 4096 (clamped per level). */
const SHARD = 4096;

/** The folder's name for the image at `url`: its last path segment, ending in `.ome.zarr`. */
export function saveName(url) {
  const last =
    new URL(url).pathname
      .split("/")
      .filter((s) => s)
      .pop() ?? "image";
  const stem = last.replace(/\.ome\.zarr$|\.zarr$/i, "") || "image";
  return `${stem.replace(/[^\w.-]+/g, "_")}.ome.zarr`;
}

/**
 * Where to save: a folder the user picks (a new folder named `name` is made in it; one of that
 * name already there is refused, not replaced), or with `target: "opfs"` or no picker, OPFS
 * (where a save of the same name is replaced: nothing else can reach it).
 */
export async function saveFolder(name, target) {
  if (target !== "opfs" && typeof window.showDirectoryPicker === "function") {
    const parent = await window.showDirectoryPicker({ mode: "readwrite", id: "zarr-wasm-save" });
    const taken = await parent.getDirectoryHandle(name).then(
      () => true,
      () => false,
    );
    if (taken)
      throw new Error(`${parent.name}/${name} already exists: pick another folder, or remove it`);
    return {
      folder: await parent.getDirectoryHandle(name, { create: true }),
      where: `${parent.name}/${name}`,
    };
  }
  const root = await navigator.storage.getDirectory();
  await root.removeEntry(name, { recursive: true }).catch(() => {});
  return { folder: await root.getDirectoryHandle(name, { create: true }), where: `OPFS: ${name}` };
}

/** A store over `store` whose keys are below `prefix`/ (a plain array saved as an image's level). */
function below(store, prefix) {
  const key = (k) => (k ? `${prefix}/${k}` : prefix);
  return {
    get: (k, o) => store.get(key(k), o),
    getRange: (k, r, o) => store.getRange(key(k), r, o),
    set: (k, v, o) => store.set(key(k), v, o),
    delete: (k, o) => store.delete(key(k), o),
    list: (k, o) => store.list(key(k), o),
  };
}

/** OME-Zarr 0.5's axes for a plain array: its dimension names, else OME's t c z y x (the last ones). */
function axesOf(arr) {
  const TYPES = { x: "space", y: "space", z: "space", c: "channel", t: "time" };
  const ndim = arr.shape.length;
  const fallback = ["t", "c", "z", "y", "x"].slice(-ndim);
  const names = arr.dimensionNames?.every((n) => n) ? arr.dimensionNames : fallback;
  return names.map((name, i) => {
    const n = name ?? `dim_${i}`;
    return TYPES[n] ? { name: n, type: TYPES[n] } : { name: n };
  });
}

/**
 * Saves the image at `url` (described by the viewer's `image`) into `store`. Resolves to
 * convert()'s result; `onProgress` and `signal` are convert()'s.
 */
export async function saveImage(url, image, store, { signal, onProgress }) {
  const { convert } = await import("zarr-wasm/convert");
  const ndim = image.ndim;
  const options = {
    ome: true,
    shards: [SHARD, SHARD].slice(-ndim),
    codec: "zstd:5",
    signal,
    onProgress,
  };
  if (image.levels.length === 1 && image.levels[0].path === "") {
    // A plain array: its copy is the level "0" of an image with one level.
    const done = await convert(url, below(store, "0"), options);
    const axes = axesOf(image.levels[0].info);
    await createGroup(store, {
      attributes: {
        ome: {
          version: "0.5",
          multiscales: [
            {
              axes,
              datasets: [
                {
                  path: "0",
                  coordinateTransformations: [{ type: "scale", scale: axes.map(() => 1) }],
                },
              ],
            },
          ],
        },
      },
    });
    return done;
  }
  return convert(url, store, options);
}

/** The save button's work: the folder, the progress bar, cancel; resolves when it has ended. */
export async function runSave({ url, image, target, ui }) {
  const name = saveName(url);
  const controller = new AbortController();
  ui.begin(() => controller.abort());
  try {
    const { folder, where } = await saveFolder(name, target);
    const store = new FileSystemHandleStore(folder);
    const started = performance.now();
    const done = await saveImage(url, image, store, {
      signal: controller.signal,
      onProgress: (p) => ui.progress(p),
    });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const mib = (done.bytes / (1 << 20)).toFixed(0);
    ui.end(
      `Saved ${done.arrays} arrays (${mib} MiB) as OME-Zarr 0.5 to ${where} in ${seconds} s, read back and checked.`,
    );
    return { ...done, name, where, seconds: Number(seconds) };
  } catch (err) {
    const cancelled = controller.signal.aborted || err?.name === "AbortError";
    ui.end(
      cancelled ? "Save cancelled: every file written is whole." : `Save failed: ${err.message}`,
      !cancelled,
    );
    throw err;
  }
}
