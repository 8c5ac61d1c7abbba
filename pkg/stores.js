// The store classes of zarr-wasm. Any object with `get(key, { signal })` (and optionally
// `getRange(key, range, { signal })`, `range` being `{ offset, length }` or `{ suffixLength }`)
// resolving to a Uint8Array, or undefined for a missing key, is a store; these are the ones the
// package provides.

/** A store that reads keys over HTTP(S) below `url` with fetch(). */
export class FetchStore {
  /** `options` (all optional) (see index.d.ts). */
  constructor(url, options = {}) {
    this.url = String(url);
    this.options = { ...options };
  }
}

/** A store held in memory: a Map from keys to bytes (`set` to add, or pass entries). */
export class MemoryStore {
  constructor(entries) {
    this.map = new Map();
    for (const [key, value] of entries ?? []) this.set(key, value);
  }
  set(key, value) {
    this.map.set(key, value instanceof Uint8Array ? value : new Uint8Array(value));
    return this;
  }
  get(key) {
    return this.map.get(key);
  }
  /** Every key held (the reader lists directories from them, as for a `Map`). */
  keys() {
    return this.map.keys();
  }
  getRange(key, range) {
    const value = this.map.get(key);
    if (value === undefined) return undefined;
    if (range.suffixLength !== undefined)
      return value.subarray(Math.max(0, value.length - range.suffixLength));
    return value.subarray(
      range.offset,
      range.length === undefined ? undefined : range.offset + range.length,
    );
  }
}

/** A Zarr hierarchy in a ZIP file (zarr-python's ZipStore), read with range requests (see index.d.ts). */
export class ZipStore {
  /** `options`: `cacheSize` (bytes of recent member data kept, default 0). */
  constructor(source, key = "", options = {}) {
    this.source =
      typeof source === "string" || source instanceof URL ? new FetchStore(source) : source;
    this.key = String(key);
    this.options = { ...options };
  }
}

/** The node at `path` of `location`, for messages. */
export function where(location, path) {
  const base =
    typeof location === "string" || location instanceof URL
      ? String(location)
      : location instanceof ZipStore
        ? `${where(location.source, location.key)}`
        : location && typeof location === "object"
          ? label(location)
          : String(location);
  return typeof path === "string" && path !== "" ? `${base.replace(/\/+$/, "")}/${path}` : base;
}

/** A store object's name in messages. */
export function label(store) {
  return store.url ? String(store.url) : `${store.constructor?.name ?? "store"}:`;
}
