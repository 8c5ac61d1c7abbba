// FileSystemHandleStore: a store below a FileSystemDirectoryHandle, the browser's file systems:
// the origin private file system (navigator.storage.getDirectory()) or a folder the user picked
// (showDirectoryPicker()). See index.d.ts. It imports nothing but errors.js.
import { abortErrorOf } from "./errors.js";

// Temporary files of writes through sync access handles: unique within a page by a counter and
// across pages and workers by a random part; hidden from listings.
const PARTIAL = ".zarr-wasm-partial";
// Chromium's createWritable writes beside the file into `<name>.crswap` until it is closed.
const SWAP = ".crswap";
let writes = 0;

/** What a missing file or folder is, from the File System API. */
const isMissing = (err) => err?.name === "NotFoundError" || err?.name === "TypeMismatchError";

/**
 * Writes `bytes` through a writable (the browser commits it on close and discards it when
 * aborted), in parts of 8 MiB with a look at `signal` between them.
 */
async function writeThroughWritable(writable, bytes, signal) {
  try {
    for (let at = 0; at < bytes.length; at += 8 << 20) {
      if (signal?.aborted) throw abortErrorOf(signal);
      await writable.write(bytes.subarray(at, at + (8 << 20)));
    }
    if (signal?.aborted) throw abortErrorOf(signal);
    await writable.close();
  } catch (err) {
    await writable.abort().catch(() => {});
    throw err;
  }
}

/**
 * Removes the file `name` of `dir`, once its writable's lock is gone: Chromium releases it a
 * moment after `abort()` has resolved, and a removal before that fails with
 * NoModificationAllowedError (seen in 1 of 10 aborted writes). Tried again for up to about a
 * second; then, or on another failure, the file is left (hidden from listings).
 */
async function removeUnlocked(dir, name) {
  for (let wait = 2; ; wait *= 2) {
    try {
      return await dir.removeEntry(name);
    } catch (err) {
      if (err?.name !== "NoModificationAllowedError" || wait > 512) return;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** Writes `bytes` through a sync access handle (a worker's), flushed and closed. */
function writeThroughSyncHandle(sync, bytes, signal) {
  try {
    let at = 0;
    while (at < bytes.length) {
      if (signal?.aborted) throw abortErrorOf(signal);
      const written = sync.write(bytes.subarray(at, at + (8 << 20)), { at });
      if (written <= 0) throw new Error(`wrote nothing at byte ${at} of ${bytes.length}`);
      at += written;
    }
    sync.truncate(bytes.length);
    sync.flush();
  } finally {
    sync.close();
  }
}

/** A key's path segments; "." and ".." and empty segments would leave the folder or alias keys. */
function segmentsOf(key, what) {
  if (typeof key !== "string") throw new TypeError(`${what}: a key is a string, not ${typeof key}`);
  const parts = key.split("/").filter((p) => p !== "");
  if (parts.some((p) => p === "." || p === ".." || p.includes("\\")))
    throw new RangeError(`${what}: key "${key}" has a "." or ".." segment or a backslash`);
  return parts;
}

/**
 * A store whose keys are files below a directory handle: key "a/b/zarr.json" is the file
 * zarr.json in folder b in folder a. Reads, ranges, listings, writes and deletes.
 */
export class FileSystemHandleStore {
  #root;
  #syncWrites;

  constructor(directory, options = {}) {
    if (directory?.kind !== "directory" || typeof directory.getDirectoryHandle !== "function")
      throw new TypeError(
        'FileSystemHandleStore needs a FileSystemDirectoryHandle: await navigator.storage.getDirectory() (the origin private file system) or await showDirectoryPicker({ mode: "readwrite" })',
      );
    if (options === null || typeof options !== "object")
      throw new TypeError("FileSystemHandleStore options must be an object");
    const { syncAccessHandles = "auto" } = options;
    if (![true, false, "auto"].includes(syncAccessHandles))
      throw new TypeError(
        `FileSystemHandleStore's syncAccessHandles is true, false or "auto", not ${JSON.stringify(syncAccessHandles)}`,
      );
    this.#root = directory;
    // Sync access handles exist in workers only (and there in every browser with the origin
    // private file system; Safari has no createWritable at all).
    const inWorker =
      typeof WorkerGlobalScope !== "undefined" && globalThis instanceof WorkerGlobalScope;
    const canSync =
      inWorker &&
      typeof globalThis.FileSystemFileHandle?.prototype?.createSyncAccessHandle === "function";
    this.#syncWrites = syncAccessHandles === "auto" ? canSync : syncAccessHandles && canSync;
    this.url = `file-system-handle:${directory.name || "/"}`;
  }

  /** The directory handle given. */
  get directory() {
    return this.#root;
  }

  /** Whether writes go through sync access handles (in a worker) rather than writables. */
  get syncAccessHandles() {
    return this.#syncWrites;
  }

  /** The folder of `parts`, made where `create`; undefined where it is missing. */
  async #folder(parts, create) {
    let dir = this.#root;
    for (const name of parts) {
      try {
        dir = await dir.getDirectoryHandle(name, { create });
      } catch (err) {
        if (!create && isMissing(err)) return undefined;
        throw err;
      }
    }
    return dir;
  }

  /** The file of `key` and its folder, or undefined where either is missing. */
  async #file(key, what) {
    const parts = segmentsOf(key, what);
    if (parts.length === 0) return undefined;
    const dir = await this.#folder(parts.slice(0, -1), false);
    if (!dir) return undefined;
    try {
      return await dir.getFileHandle(parts[parts.length - 1]);
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  async get(key, options) {
    options?.signal?.throwIfAborted?.();
    const handle = await this.#file(key, "get");
    if (!handle) return undefined;
    return new Uint8Array(await (await handle.getFile()).arrayBuffer());
  }

  /** Part of a file: `{ offset, length }` (length may be absent: to the end) or `{ suffixLength }`. */
  async getRange(key, range, options) {
    options?.signal?.throwIfAborted?.();
    const handle = await this.#file(key, "getRange");
    if (!handle) return undefined;
    const file = await handle.getFile();
    const start =
      range.suffixLength !== undefined
        ? Math.max(0, file.size - range.suffixLength)
        : Math.min(range.offset, file.size);
    const end = range.length !== undefined ? Math.min(file.size, start + range.length) : file.size;
    return new Uint8Array(await file.slice(start, end).arrayBuffer());
  }

  /** The names directly below the folder `prefix` ("" is the root), or undefined if it is none. */
  async list(prefix, options) {
    options?.signal?.throwIfAborted?.();
    const dir = await this.#folder(segmentsOf(prefix, "list"), false);
    if (!dir) return undefined;
    const names = [];
    for await (const name of dir.keys())
      if (!name.endsWith(SWAP) && !name.endsWith(PARTIAL)) names.push(name);
    return names.sort();
  }

  /**
   * Writes `value` at `key`, whole: into a temporary file beside the key's (through a writable,
   * or in a worker through a sync access handle), which is moved over the key's file once it is
   * written. A failed or aborted write leaves the old value, and a reader never sees a file
   * partly written, nor an empty one where a new key is being written. Folders are made as needed.
   */
  async set(key, value, options) {
    const signal = options?.signal;
    if (signal?.aborted) throw abortErrorOf(signal);
    const parts = segmentsOf(key, "set");
    if (parts.length === 0) throw new RangeError("set: the empty key names the folder itself");
    const bytes = value instanceof Uint8Array ? value : new Uint8Array(value);
    const dir = await this.#folder(parts.slice(0, -1), true);
    const name = parts[parts.length - 1];
    const temporary = `${name}.${(++writes).toString(36)}${Math.random().toString(36).slice(2, 8)}${PARTIAL}`;
    const handle = await dir.getFileHandle(temporary, { create: true });
    try {
      if (typeof handle.move !== "function") {
        // A browser without move() (none seen yet): the key's file written in place through a
        // writable, which the browser commits on close; a new key's file is empty meanwhile.
        await dir.removeEntry(temporary).catch(() => {});
        return await this.#writeInPlace(dir, name, bytes, signal);
      }
      if (this.#syncWrites)
        writeThroughSyncHandle(await handle.createSyncAccessHandle(), bytes, signal);
      else await writeThroughWritable(await handle.createWritable(), bytes, signal);
      if (signal?.aborted) throw abortErrorOf(signal);
      await handle.move(dir, name);
    } catch (err) {
      await removeUnlocked(dir, temporary);
      throw signal?.aborted ? abortErrorOf(signal) : err;
    }
  }

  async #writeInPlace(dir, name, bytes, signal) {
    let existed = true;
    const handle = await dir.getFileHandle(name).catch(() => {
      existed = false;
      return dir.getFileHandle(name, { create: true });
    });
    try {
      await writeThroughWritable(await handle.createWritable(), bytes, signal);
    } catch (err) {
      if (!existed) await removeUnlocked(dir, name);
      throw signal?.aborted ? abortErrorOf(signal) : err;
    }
  }

  /** Removes the file of `key`; nothing there is not an error. */
  async delete(key, options) {
    const signal = options?.signal;
    if (signal?.aborted) throw abortErrorOf(signal);
    const parts = segmentsOf(key, "delete");
    if (parts.length === 0) return;
    const dir = await this.#folder(parts.slice(0, -1), false);
    if (!dir) return;
    try {
      await dir.removeEntry(parts[parts.length - 1]);
    } catch (err) {
      // A folder where a file was asked for is no key's value: left alone, as a missing key.
      if (!isMissing(err) && err?.name !== "InvalidModificationError") throw err;
    }
  }
}
