// zarr-wasm/fs: a store over a local directory, for Node (and Deno, Bun). Kept out of the main
// entry so that browser bundles never see node:fs.
import { mkdir, open as openFile, readdir, readFile, rename, rm, unlink } from "node:fs/promises";
import { dirname, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { abortErrorOf } from "./errors.js";

// What a missing key looks like on a file system.
const MISSING = new Set(["ENOENT", "ENOTDIR", "EISDIR"]);

// Temporary files of writes in progress: unique within a process by a counter, across processes
// by the process id.
let writes = 0;

/** A store over the files below `dir`: key "a/b/zarr.json" is the file dir/a/b/zarr.json. */
export class FileSystemStore {
  constructor(dir) {
    this.root = resolve(String(dir));
    this.url = pathToFileURL(this.root).href;
  }

  /** The file of `key`; keys cannot reach outside the directory. */
  path(key) {
    const path = resolve(this.root, key);
    if (path !== this.root && !path.startsWith(this.root + sep))
      throw new RangeError(`key ${key} leaves ${this.root}`);
    return path;
  }

  /** The names directly below the directory `prefix` ("" is the root), or undefined if it is none. */
  async list(prefix) {
    try {
      return (await readdir(this.path(prefix))).sort();
    } catch (err) {
      if (MISSING.has(err.code)) return undefined;
      throw err;
    }
  }

  /**
   * Writes `value` at `key`, whole: to a temporary file beside it, flushed, then renamed over the
   * key's file, so that a crash leaves the old value or the new one, never a torn one. Its
   * directories are made as needed. An aborted `options.signal` stops the write before the
   * rename (the old value stays) and rejects with an AbortError.
   */
  async set(key, value, options = {}) {
    const { signal } = options ?? {};
    const path = this.path(key);
    if (signal?.aborted) throw abortErrorOf(signal);
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${process.pid}.${++writes}.partial`;
    let file;
    try {
      file = await openFile(temporary, "wx");
      await file.writeFile(value, { signal });
      await file.sync();
      await file.close();
      file = undefined;
      if (signal?.aborted) throw abortErrorOf(signal);
      await rename(temporary, path);
    } catch (err) {
      await file?.close().catch(() => {});
      await rm(temporary, { force: true }).catch(() => {});
      throw err;
    }
  }

  /** Removes the file of `key`; nothing there is not an error. */
  async delete(key) {
    try {
      await unlink(this.path(key));
    } catch (err) {
      if (!MISSING.has(err.code)) throw err;
    }
  }

  async get(key) {
    try {
      return new Uint8Array(await readFile(this.path(key)));
    } catch (err) {
      if (MISSING.has(err.code)) return undefined;
      throw err;
    }
  }

  /** Part of a file: `{ offset, length }` (length may be absent: to the end) or `{ suffixLength }`. */
  async getRange(key, range) {
    let file;
    try {
      file = await openFile(this.path(key), "r");
    } catch (err) {
      if (MISSING.has(err.code)) return undefined;
      throw err;
    }
    try {
      const { size } = await file.stat();
      const start =
        range.suffixLength !== undefined
          ? Math.max(0, size - range.suffixLength)
          : Math.min(range.offset, size);
      const end = range.length !== undefined ? Math.min(size, start + range.length) : size;
      const out = new Uint8Array(end - start);
      let done = 0;
      while (done < out.length) {
        const { bytesRead } = await file.read(out, done, out.length - done, start + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return out.subarray(0, done);
    } finally {
      await file.close();
    }
  }
}
