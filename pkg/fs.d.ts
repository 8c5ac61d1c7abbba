/**
 * Files on disk as a store (Node, Deno, Bun; not in browser bundles).
 * @module zarr-wasm/fs
 */
import type { WritableStore } from "./index.js";

/** A store over the files below `dir` (Node, Deno, Bun): key "a/zarr.json" is the file dir/a/zarr.json. */
export class FileSystemStore implements WritableStore {
  constructor(dir: string);
  /** The directory, absolute. */
  readonly root: string;
  /** Its file: URL, which names it in error messages. */
  readonly url: string;
  /** The bytes of `key`'s file, or undefined where there is no such file. */
  get(key: string): Promise<Uint8Array | undefined>;
  /** The bytes of `range` of `key`'s file (cut at its end), or undefined where there is none. */
  getRange(key: string, range: RangeRequest): Promise<Uint8Array | undefined>;
  /** The names in the directory `prefix` ("" is the root), or undefined where there is none. */
  list(prefix: string): Promise<string[] | undefined>;
  /**
   * Writes a value whole: to a temporary file beside the key's, then renamed over it, so that a
   * crash leaves the old value or the new one. Directories are made as needed. An aborted
   * `signal` stops the write before the rename (the old value stays) with an AbortError.
   */
  set(key: string, value: Uint8Array, options?: { signal?: AbortSignal }): Promise<void>;
  /** Removes a key's file; a missing one is not an error. */
  delete(key: string): Promise<void>;
}

/**
 * A byte range of a file: `length` bytes from `offset` (to the end without one), or the last
 * `suffixLength` bytes.
 */
type RangeRequest =
  | {
      /** The first byte's offset in the file. */
      offset: number;
      /** Bytes to read from `offset`; without it, to the end of the file. */
      length?: number;
    }
  | {
      /** Bytes to read from the end of the file. */
      suffixLength: number;
    };
