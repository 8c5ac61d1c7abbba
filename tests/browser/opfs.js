// What tests/browser/opfs.test.mjs runs in its page (opfs.html) and in a module worker of it
// (opfs-worker.js): zarr-wasm writing to the origin private file system through
// FileSystemHandleStore. Each function answers plain data (what page.evaluate carries).
import * as zarr from "/pkg/index.js";
import { ARRAYS, valuesOf } from "/tests/browser/opfs-arrays.js";

export { ARRAYS, valuesOf };

/** A fresh folder of the origin private file system, for one test. */
export async function folder(name) {
  const root = await navigator.storage.getDirectory();
  await root.removeEntry(name, { recursive: true }).catch(() => {});
  return root.getDirectoryHandle(name, { create: true });
}

/** Writes ARRAYS (below `prefix`) to `store`, reads each back, and says what differed. */
export async function writeAndRead(store, prefix = "") {
  await zarr.createGroup(store, { path: prefix || undefined });
  const problems = [];
  for (const [name, options] of Object.entries(ARRAYS)) {
    const path = prefix ? `${prefix}/${name}` : name;
    const arr = await zarr.create(store, { ...options, path });
    await arr.set(null, valuesOf(options.dtype, options.shape));
    const { data } = await (await zarr.open(store, { path, kind: "array" })).get();
    const want = valuesOf(options.dtype, options.shape);
    const bad = want.findIndex((v, k) => data[k] !== v);
    if (data.length !== want.length || bad >= 0)
      problems.push(`${path}: element ${bad} is ${data[bad]}, not ${want[bad]}`);
  }
  return problems;
}

/** Every file below `dir`, as [path, base64] pairs (what zarr-python reads, from the test's disk). */
export async function files(dir, prefix = "") {
  const out = [];
  for await (const [name, handle] of dir.entries()) {
    const path = prefix ? `${prefix}/${name}` : name;
    if (handle.kind === "directory") out.push(...(await files(handle, path)));
    else {
      const bytes = new Uint8Array(await (await handle.getFile()).arrayBuffer());
      let text = "";
      for (let k = 0; k < bytes.length; k += 0x8000)
        text += String.fromCharCode(...bytes.subarray(k, k + 0x8000));
      out.push([path, btoa(text)]);
    }
  }
  return out;
}

/** Every name below `dir`, folders with a trailing "/", sorted. */
export async function names(dir, prefix = "") {
  const out = [];
  for await (const [name, handle] of dir.entries()) {
    const path = prefix ? `${prefix}/${name}` : name;
    if (handle.kind === "directory") out.push(`${path}/`, ...(await names(handle, path)));
    else out.push(path);
  }
  return out.sort();
}

/**
 * A 64 MiB value written over a 3-byte one, aborted once its write has begun: the write rejects
 * with an AbortError and the old value stays, nothing else beside it.
 */
export async function interruptedSet(store, dir) {
  await store.set("value", new Uint8Array([1, 2, 3]));
  const stop = new AbortController();
  const big = new Uint8Array(64 << 20).fill(9);
  const writing = store.set("value", big, { signal: stop.signal });
  setTimeout(() => stop.abort(), 1);
  const error = await writing.then(
    () => null,
    (e) => e,
  );
  const after = await store.get("value");
  return {
    error: error && `${error.name}: ${error.message}`,
    after: Array.from(after ?? []),
    names: await names(dir),
    listed: await store.list(""),
  };
}

/** The folder `name` of the origin private file system, as it is. */
export async function folderOf(name) {
  return (await navigator.storage.getDirectory()).getDirectoryHandle(name);
}
