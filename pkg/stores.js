// The store classes of zarr-wasm. Any object with `get(key, { signal })` (and optionally
// `getRange(key, range, { signal })`, `range` being `{ offset, length }` or `{ suffixLength }`)
// resolving to a Uint8Array, or undefined for a missing key, is a store; these are the ones the
// package provides.

import {
  FETCH_STORE,
  ICECHUNK_STORE,
  REFERENCE_STORE,
  ZIP_STORE,
  checkOptions,
  show,
} from "./options.js";

/** A store that reads keys over HTTP(S) below `url` with fetch(). */
export class FetchStore {
  /** `options` (all optional) (see index.d.ts); a TypeError or RangeError names a bad one. */
  constructor(url, options = {}) {
    checkUrl(url, "FetchStore");
    this.url = String(url);
    this.options = { ...checkOptions(options, "FetchStore", FETCH_STORE) };
  }
}

/** Throws a TypeError unless `url` is a string or a URL object. */
function checkUrl(url, call) {
  if (typeof url !== "string" && !(url instanceof URL))
    throw new TypeError(`${call} takes a URL (a string or a URL object), not ${show(url)}`);
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
  /** Removes the value at `key` (the writer's erase). */
  delete(key) {
    this.map.delete(key);
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
    if (typeof key !== "string")
      throw new TypeError(
        `ZipStore's key must be a string (the archive's key in the store), not ${show(key)}`,
      );
    checkOptions(options, "ZipStore", ZIP_STORE);
    this.source =
      typeof source === "string" || source instanceof URL ? new FetchStore(source) : source;
    this.key = String(key);
    this.options = { ...options };
  }
}

/**
 * kerchunk references (see index.d.ts): `source` is the URL of a reference JSON file or of a
 * directory of Parquet references, or a JSON file parsed (a plain object, version 0 or 1).
 */
export class ReferenceStore {
  /** `options`: the FetchStore's for the requests, and the bounds; a TypeError or RangeError names a bad one. */
  constructor(source, options = {}) {
    if (typeof source === "string" || source instanceof URL) this.url = String(source);
    else if (source !== null && typeof source === "object" && !Array.isArray(source))
      this.references = source;
    else
      throw new TypeError(
        `ReferenceStore takes the URL of a kerchunk reference file or Parquet reference directory (a string or a URL object) or a reference file parsed (an object), not ${show(source)}`,
      );
    this.options = { ...checkOptions(options, "ReferenceStore", REFERENCE_STORE) };
    if (this.options.baseUrl !== undefined && this.options.baseUrl !== null)
      this.options.baseUrl = String(this.options.baseUrl);
  }
}

/**
 * An Icechunk repository (see index.d.ts) at `url` (http(s), s3:// or gs://), read at a branch
 * ("main" unless `branch`, `tag` or `snapshot` says otherwise).
 */
export class IcechunkStore {
  /** `options`: the version, the allowed virtual chunk containers, the FetchStore's for the requests. */
  constructor(url, options = {}) {
    checkUrl(url, "IcechunkStore");
    this.url = String(url);
    this.options = { ...checkOptions(options, "IcechunkStore", ICECHUNK_STORE) };
    const versions = ["branch", "tag", "snapshot"].filter(
      (k) => this.options[k] !== undefined && this.options[k] !== null,
    );
    if (versions.length > 1)
      throw new RangeError(
        `IcechunkStore options ${versions.join(" and ")}: give at most one of branch, tag and snapshot`,
      );
    const id = this.options.snapshot;
    if (typeof id === "string" && !/^[0-9A-HJKMNP-TV-Z]{20}$/i.test(id))
      throw new RangeError(
        `IcechunkStore option snapshot must be a snapshot id (20 Crockford base 32 characters), not ${show(id)}`,
      );
    if (this.options.allowedContainers)
      this.options.allowedContainers = [...this.options.allowedContainers];
  }
}

/**
 * What a store object's first opening resolved, kept as long as the object lives so that it is
 * opened the same way again: in a fresh instance of the module (after a trap, or memory given
 * back) and in each worker of a pool. An IcechunkStore's `{ snapshot }`, the snapshot id its
 * branch or tag was at; a ReferenceStore's `{ url, document }`, its reference file as read (a
 * Blob, which workers are sent without a copy) and the URL it was read from, which relative
 * targets resolve against (for a directory of Parquet references, its `.zmetadata` and that
 * file's URL). A commit to the branch, or a file regenerated, after the first
 * opening is not seen: every read of a node, wherever it runs, is of the version its metadata
 * came from.
 */
export const resolved = new WeakMap();

/** IcechunkStore options at the snapshot `id` rather than their branch or tag. */
export function atSnapshot(options, id) {
  const { branch, tag, snapshot, ...rest } = options ?? {};
  return { ...rest, snapshot: id };
}

/**
 * For the module's opening of `store`, a ReferenceStore of a URL: a `fetch` that sends its
 * requests on (through the store's own `fetch` option, else the global one) and keeps a copy of
 * the reference file's body as it arrives, the first whole answer (200) to a GET of the file's
 * URL as the module asks for it (without its fragment and the path's final slashes: HttpStore's
 * url("") in src/store/http.rs), or of the `.zmetadata` below it (a directory of Parquet
 * references: the module's url(".zmetadata")); `stop()` once the opening is over. `document`
 * resolves to `{ url, document }` (see `resolved`), or to null where there was none (a failure,
 * a file over the store's maxReferenceBytes).
 */
export function recordReferenceFile(store) {
  const given = store.options.fetch;
  const send = (request) => (given ? given(request) : globalThis.fetch(request));
  const noFragment = store.url.split("#")[0];
  const q = noFragment.indexOf("?");
  const path = (q < 0 ? noFragment : noFragment.slice(0, q)).replace(/\/+$/, "");
  const query = q < 0 ? "" : noFragment.slice(q);
  const url = path + query;
  // A directory's .zmetadata, as the module asks for it (the key before the query).
  const zmetadata = `${path}/.zmetadata${query}`;
  let href = null;
  let zmetadataHref = null;
  try {
    href = new URL(url, globalThis.location?.href).href;
    zmetadataHref = new URL(zmetadata, globalThis.location?.href).href;
  } catch {
    // Not a URL fetch() takes: the module says so.
  }
  let recording = href !== null;
  let found;
  const document = new Promise((resolve) => (found = resolve));
  const limit = store.options.maxReferenceBytes ?? 256 << 20;
  const fetch = (request) => {
    const answer = send(request);
    if (!recording || request?.method !== "GET") return answer;
    const at = request.url === href ? url : request.url === zmetadataHref ? zmetadata : null;
    if (at === null) return answer;
    return Promise.resolve(answer).then((response) => {
      if (recording && response?.status === 200 && typeof response.clone === "function") {
        recording = false;
        // Read beside the module's copy, from the same answer.
        // Kept as its parts: a Blob of them costs no joined copy of a 30 MB file.
        partsWithin(response.clone(), limit).then(
          (parts) => found(parts ? { url: at, document: new Blob(parts) } : null),
          () => found(null),
        );
      }
      return response;
    });
  };
  // Nothing recorded by the end of the opening: none is coming (a body being read resolves it).
  const stop = () => {
    if (recording || href === null) found(null);
    recording = false;
  };
  return { fetch, document, stop };
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

// The largest document handed to the module as read (as src/store/documents.rs bounds them).
const MAX_DOCUMENT_BYTES = 1 << 20;

/**
 * An open()'s first requests, sent from JS while the module is still downloading and compiling,
 * read from a URL or FetchStore as the module's store would read them (its URL, headers,
 * credentials, redirects and timeout): the node's `zarr.json`; where there is none (or
 * `zarrFormat: 2`), the Zarr v2 documents of the node, asked for together, only those of the
 * `kind` asked for (`.zarray` and `.zattrs` for an array; `.zgroup`, `.zattrs` and `.zmetadata`
 * for a group; all four without `kind`), and the other kind's marked missing, so that the module
 * asks for nothing more. Resolves to the documents (`[[key, bytes or null]]`, null for a missing
 * key) to open from, or to null where they cannot stand in for the module's own requests (a
 * `fetch` of the caller's, consolidated metadata or Zarr v1 asked for, a key that would need
 * escaping, a query string, an answer other than 200 or 404): the module then asks as usual.
 * Never rejects.
 */
export async function firstDocuments(location, options) {
  const plain = plainHttp(location, options);
  const path = options.path ?? "";
  if (!plain || options.zarrFormat === 1 || options.consolidated) return null;
  if (!/^[A-Za-z0-9._~/-]*$/.test(path)) return null;
  const dir = path.replace(/^\/+|\/+$/g, "");
  const keyOf = (name) => (dir ? `${dir}/${name}` : name);
  const { o } = plain;
  // A document's bytes, null where it is missing, undefined where the module must ask itself.
  const fetchDocument = async (key) => {
    const response = await plain.get(key);
    if (response.status === 404 || (response.status === 403 && o.treat403AsMissing)) {
      await response.body?.cancel();
      return null;
    }
    const length = Number(response.headers.get("Content-Length") ?? 0);
    if (response.status !== 200 || length > MAX_DOCUMENT_BYTES) {
      await response.body?.cancel();
      return undefined;
    }
    return (await bodyWithin(response, MAX_DOCUMENT_BYTES)) ?? undefined;
  };
  try {
    const documents = [];
    if (options.zarrFormat !== 2) {
      const zarrJson = await fetchDocument(keyOf("zarr.json"));
      if (zarrJson === undefined) return null;
      documents.push([keyOf("zarr.json"), zarrJson]);
      if (zarrJson !== null || options.zarrFormat === 3) return documents;
    }
    const wanted =
      options.kind === "array"
        ? [".zarray", ".zattrs"]
        : options.kind === "group"
          ? [".zgroup", ".zattrs", ".zmetadata"]
          : [".zarray", ".zattrs", ".zgroup", ".zmetadata"];
    const names = wanted.filter((n) => n !== ".zmetadata" || options.consolidated !== false);
    const found = await Promise.all(names.map((n) => fetchDocument(keyOf(n))));
    // Where one cannot stand in, the module asks for the v2 documents itself.
    if (found.includes(undefined)) return documents.length > 0 ? documents : null;
    names.forEach((n, i) => documents.push([keyOf(n), found[i]]));
    // A group asked for: the module asks for no `.zarray` (an array there is not the node asked
    // for). An array asked for and not there: the module looks for what is, to say so.
    if (options.kind === "group") documents.push([keyOf(".zarray"), null]);
    return documents;
  } catch {
    return null;
  }
}

// The most children of a group whose documents are asked for from JS (childrenDocuments).
const EARLY_CHILDREN = 16;

/**
 * The children of a group opened while the module loads whose documents JS asks for at once:
 * where the group's documents (`documents`, from firstDocuments) show an OME-Zarr image, the
 * datasets its `multiscales` name (NGFF 0.4 in the attributes, 0.5 under `ome`), each asked for
 * as an array in the group's Zarr format, as `group.open` would ask (firstDocuments). A viewer
 * opens them next: their requests then overlap the module's download rather than follow it.
 * Resolves to a Map from each child's path (below the group) to its documents' promise, or null:
 * no image, consolidated metadata (opening a child asks for nothing then), more than
 * EARLY_CHILDREN datasets, or a path JS does not follow. Never throws.
 */
export function childrenDocuments(location, options, documents) {
  try {
    const group = groupOfDocuments(documents);
    if (!group || group.consolidated) return null;
    const paths = new Set(multiscalePaths(group.attrs) ?? []);
    if (paths.size === 0 || paths.size > EARLY_CHILDREN) return null;
    const base = (options.path ?? "").replace(/^\/+|\/+$/g, "");
    const children = new Map();
    for (const path of paths) {
      const parts = typeof path === "string" ? path.split("/") : [];
      if (parts.length === 0 || parts.some((p) => p === "" || p === "." || p === "..")) return null;
      const childOptions = {
        ...options,
        path: base ? `${base}/${path}` : path,
        kind: "array",
        zarrFormat: group.zarrFormat,
      };
      children.set(path, firstDocuments(location, childOptions));
    }
    return children;
  } catch {
    return null;
  }
}

/**
 * The dataset paths an OME-Zarr group's attributes name (NGFF 0.4's `multiscales`, or 0.5's under
 * `ome`), every multiscale's, as written (not checked); null where it has no multiscales.
 */
export function multiscalePaths(attrs) {
  const multiscales = attrs?.ome?.multiscales ?? attrs?.multiscales;
  if (!Array.isArray(multiscales)) return null;
  return multiscales.flatMap((m) =>
    Array.isArray(m?.datasets) ? m.datasets.map((d) => d?.path) : [],
  );
}

const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * What a group's documents (`[[key, bytes or null]]`, from firstDocuments) say of it:
 * `{ zarrFormat, attrs, consolidated }`, or null where they show no group.
 */
function groupOfDocuments(documents) {
  if (!Array.isArray(documents)) return null;
  const json = (name) => {
    const bytes = documents.find(([key]) => key === name || key.endsWith(`/${name}`))?.[1];
    return bytes ? JSON.parse(new TextDecoder().decode(bytes)) : null;
  };
  const v3 = json("zarr.json");
  if (v3)
    return v3.node_type === "group"
      ? {
          zarrFormat: 3,
          attrs: isObject(v3.attributes) ? v3.attributes : {},
          consolidated: v3.consolidated_metadata != null,
        }
      : null;
  if (!json(".zgroup")) return null;
  const attrs = json(".zattrs");
  return { zarrFormat: 2, attrs: isObject(attrs) ? attrs : {}, consolidated: !!json(".zmetadata") };
}

/**
 * Where `location` (a URL or a FetchStore without a `fetch` of the caller's) is read over plain
 * HTTP(S): `{ o, get(key, headers?) }`, `get` fetching a key as the module's store would (its
 * URL, headers, credentials, redirects and timeout, and the open()'s signal); else null.
 */
function plainHttp(location, options) {
  const store = location instanceof FetchStore ? location : null;
  const url = store
    ? store.url
    : typeof location === "string" || location instanceof URL
      ? String(location)
      : null;
  const o = store?.options ?? {};
  if (url === null || o.fetch || !/^https?:\/\/[^?#]*$/.test(url)) return null;
  const timeout = o.timeout ?? 30000;
  const get = (key, extra = {}, method = "GET") => {
    const signals = [options.signal, timeout > 0 ? AbortSignal.timeout(timeout) : null].filter(
      Boolean,
    );
    const headers = new Headers(o.headers);
    for (const [name, value] of Object.entries(extra)) headers.set(name, value);
    return fetch(`${url.replace(/\/+$/, "")}/${key}`, {
      method,
      headers,
      credentials: o.credentials,
      redirect: o.redirect,
      signal: signals.length > 1 ? AbortSignal.any(signals) : signals[0],
    });
  };
  return { o, get, suffix: suffixRangesFor(url, o), location: locationOf(url) };
}

/**
 * How the module's HTTP store asks for the end of a value (a shard index at the end), handed to
 * it as its `suffixRequests` option: as the caller said (true: a suffix range `bytes=-N`; false:
 * HEAD, then an explicit range), else a suffix range on the page's own origin and where there is
 * no page (Node has no CORS), and "head" from a page of another origin: HEAD, then an explicit
 * range, a suffix range only where HEAD does not serve. A suffix range is not a CORS-safelisted
 * Range, so a browser sends each to another origin only after a preflight, and only to a server
 * whose CORS rules allow the Range header; an explicit range needs neither.
 */
export function suffixRangesFor(url, options) {
  if (typeof options?.suffixRequests === "boolean") return options.suffixRequests;
  // A location whose server refused a suffix range while the module loaded (firstShardIndexes):
  // the module's store is not to send it another.
  if (suffixFacts.get(locationOf(url)) === "refused") return false;
  // Headers that are not CORS-safelisted (an Authorization) cost a preflight whatever the Range:
  // HEAD first would then add a request.
  const safelisted = new Set(["accept", "accept-language", "content-language"]);
  if (Object.keys(options?.headers ?? {}).some((name) => !safelisted.has(name.toLowerCase())))
    return true;
  const page = globalThis.location;
  if (typeof page?.origin !== "string") return true;
  try {
    return new URL(url, page.href).origin === page.origin || "head";
  } catch {
    return true;
  }
}

// What the shard index requests sent from JS while the module loads (firstShardIndexes) learnt
// of a location (a store's URL) about suffix ranges: "served", "refused" (416, or answered with
// another range), or "whole" (a range answered with the whole value: nothing more is asked from
// JS there). The module's stores are told of a refusal (suffixRangesFor).
const suffixFacts = new Map();
// The suffix request whose answer will tell, per location, while it is in flight: the suffix
// requests after it wait for it rather than each be refused (a server without suffix ranges,
// such as `npx http-server`, answered each shard of a first view with a 416).
const suffixProbes = new Map();

/** A store's location, as the module's store keys what it learns (its URL without a final "/"). */
function locationOf(url) {
  return String(url).replace(/\/+$/, "");
}

// An open() asks for the shard indexes of an array of at most this many shards from JS, each of
// at most this many bytes (see firstShardIndexes).
const EARLY_SHARDS = 8;
const EARLY_INDEX_BYTES = 64 << 10;

/**
 * The shard indexes of a small sharded array, asked for from JS as soon as its `zarr.json`
 * (`documents`, from firstDocuments) is in, while the module is still downloading: the node's
 * first reads then find them kept and go straight to the chunks (a viewer's first view is often
 * an OME-Zarr image's lowest level, of a few shards). Only the plain case: a v3 array on a
 * regular grid whose one codec is sharding_indexed with its index at the end, coded as `bytes`
 * and an optional `crc32c`; at most EARLY_SHARDS shards; each index asked for as the module's
 * store would (a suffix range, or HEAD and an explicit range: suffixRangesFor). Resolves to
 * `[[key, bytes or null]]` (null: no such shard), or null where none were asked for; never
 * rejects. The module checks each index as it checks those it fetches (`keepShardIndexes` drops
 * one of the wrong size; a damaged one fails the read that uses it).
 */
export async function firstShardIndexes(location, options, documents) {
  const plain = plainHttp(location, options);
  const [key, bytes] = documents?.[0] ?? [];
  if (!plain || !bytes || !key.endsWith("zarr.json")) return null;
  const plan = indexPlan(bytes);
  if (!plan) return null;
  const dir = key.slice(0, -"zarr.json".length);
  const { o } = plain;
  const missing = (response) =>
    response.status === 404 || (response.status === 403 && o.treat403AsMissing);
  // The Range header for the shard's index, as the module's store would ask for it (see
  // suffixRangesFor), with `length`, the value's length by HEAD, for an explicit one; "missing"
  // for no such shard; null: leave the shard to the module.
  const suffix = { range: `bytes=-${plan.size}`, suffix: plan.size };
  const rangeOf = async (shardKey) => {
    const refused = suffixFacts.get(plain.location) === "refused";
    if (plain.suffix === true && !refused) return suffix;
    const head = await plain.get(shardKey, {}, "HEAD").catch((err) => {
      if (err?.name === "AbortError") throw err;
      return null; // refused (a CORS rule that allows GET alone) or failed
    });
    if (head && missing(head)) return "missing";
    const text = head?.ok ? head.headers.get("Content-Length") : null;
    const length = /^\d+$/.test(text ?? "") ? Number(text) : 0;
    if (length >= plan.size && Number.isSafeInteger(length)) {
      const start = length - plan.size;
      return { range: `bytes=${start}-${length - 1}`, start, end: length - 1, length };
    }
    // HEAD refused, failed or without a length: a suffix range where the module's store would
    // ask one ("head"; see get_suffix_head_first in src/store/http.rs).
    return plain.suffix === "head" && length === 0 && !refused ? suffix : null;
  };
  // The answer to the request for `shardKey`'s index: `{ response, asked }`, or "missing", or
  // null where JS is to leave it to the module. A suffix range goes alone while its location's
  // answer to them is unknown: the others wait for its answer, then ask as it taught (after a
  // refusal, by HEAD and an explicit range; the refused shard too).
  const request = async (shardKey) => {
    let asked = await rangeOf(shardKey);
    for (;;) {
      if (asked === "missing" || asked === null) return asked;
      const learnt = suffixFacts.get(plain.location);
      if (learnt === "whole") return null;
      if (learnt === "refused" && asked.suffix !== undefined) {
        asked = await rangeOf(shardKey); // no suffix range again
        continue;
      }
      const probe = suffixProbes.get(plain.location);
      if (asked.suffix === undefined || learnt === "served" || probe === undefined) {
        const sent = plain.get(shardKey, { Range: asked.range });
        if (asked.suffix === undefined || learnt === "served")
          return { response: await sent, asked };
        // The first suffix request at the location: what its answer says is learnt before
        // anyone waiting on it goes on.
        const learning = sent
          .then(
            (response) => {
              const fact = suffixFact(response, asked);
              if (fact) suffixFacts.set(plain.location, fact);
            },
            () => {}, // nothing learnt: the next one waiting asks
          )
          .finally(() => {
            if (suffixProbes.get(plain.location) === learning) suffixProbes.delete(plain.location);
          });
        suffixProbes.set(plain.location, learning);
        const response = await sent;
        if (suffixFacts.get(plain.location) !== "refused") return { response, asked };
        await response.body?.cancel();
        continue; // asked again, as it taught
      }
      await probe;
    }
  };
  const one = async (shardKey) => {
    try {
      const answered = await request(shardKey);
      if (answered === "missing") return [[shardKey, null]];
      if (answered === null) return [];
      const { response, asked } = answered;
      if (missing(response)) {
        await response.body?.cancel();
        return [[shardKey, null]];
      }
      // Another range than the one asked for (a cache that answered for another, a server that
      // misread it), or a value that ends elsewhere than HEAD said (a stale answer): left to the
      // module, which checks its answers alike. Taken, an index without a crc32c would read as
      // wrong values, silently.
      if (response.status !== 206 || !isRangeAsked(response.headers.get("Content-Range"), asked)) {
        await response.body?.cancel();
        return [];
      }
      const index = await bodyWithin(response, plan.size);
      return index?.length === plan.size ? [[shardKey, index]] : [];
    } catch {
      return [];
    }
  };
  const indexes = (await Promise.all(plan.shards.map((shard) => one(dir + shard)))).flat();
  return indexes.length > 0 ? indexes : null;
}

/**
 * What the answer `response` to a suffix range (`asked`, `{ suffix }`) says of its server:
 * "served" (206, the range asked for), "refused" (416, or 206 with another range: Vite's dev
 * server gives the first N + 1 bytes for `bytes=-N`), "whole" (200: the whole value, ranges
 * ignored), or null for nothing (a missing key, an error status, a malformed Content-Range).
 */
function suffixFact(response, asked) {
  if (response.status === 416) return "refused";
  if (response.status === 200) return "whole";
  if (response.status !== 206) return null;
  const header = response.headers.get("Content-Range");
  if (isRangeAsked(header, asked)) return "served";
  return /^bytes \d+-\d+\/\d+$/.test(header.trim()) ? "refused" : null;
}

/**
 * Whether `header`, the Content-Range of a 206 answer, says it holds the range `asked`: `{ start,
 * end, length }` (bytes start to end of a value `length` bytes long, by HEAD), or `{ suffix }`
 * (the last `suffix` bytes: the range must end at the value's last byte and be that long). A
 * malformed header does not; a missing one (a browser hides it unless the server exposes it)
 * leaves the body's length to tell, as the module's store does (check_partial in
 * src/store/http.rs).
 */
function isRangeAsked(header, asked) {
  if (header === null) return true;
  const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(header.trim());
  if (!m) return false;
  const [start, end] = [Number(m[1]), Number(m[2])];
  const total = m[3] === "*" ? null : Number(m[3]);
  if (!Number.isSafeInteger(end) || end < start || (total !== null && end >= total)) return false;
  if (asked.suffix !== undefined)
    return total !== null && end === total - 1 && end - start + 1 === asked.suffix;
  return start === asked.start && end === asked.end && (total === null || total === asked.length);
}

/**
 * For a `zarr.json` of the plain sharded case firstShardIndexes takes: its shards' keys (below
 * the node) and the size of each encoded index; else null.
 */
function indexPlan(bytes) {
  let meta;
  try {
    meta = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null;
  }
  const { shape, chunk_grid: grid, codecs, chunk_key_encoding: encoding } = meta ?? {};
  const whole = (list, n) =>
    Array.isArray(list) && list.length === n && list.every((x) => Number.isSafeInteger(x) && x > 0);
  const shardShape = grid?.configuration?.chunk_shape;
  const sharding = codecs?.length === 1 ? codecs[0] : null;
  const config = sharding?.configuration ?? {};
  const indexCodecs = (config.index_codecs ?? []).map((c) => (typeof c === "string" ? c : c?.name));
  if (
    meta?.zarr_format !== 3 ||
    meta.node_type !== "array" ||
    !Array.isArray(shape) ||
    shape.length === 0 ||
    !shape.every((n) => Number.isSafeInteger(n) && n >= 0) ||
    grid?.name !== "regular" ||
    !whole(shardShape, shape.length) ||
    sharding?.name !== "sharding_indexed" ||
    !whole(config.chunk_shape, shape.length) ||
    (config.index_location ?? "end") !== "end" ||
    !(indexCodecs[0] === "bytes" && indexCodecs.slice(1).every((c) => c === "crc32c")) ||
    indexCodecs.length > 2
  )
    return null;
  const perShard = shardShape.map((n, i) => n / config.chunk_shape[i]);
  if (!perShard.every(Number.isSafeInteger)) return null;
  const size = perShard.reduce((a, b) => a * b, 1) * 16 + (indexCodecs.length === 2 ? 4 : 0);
  const counts = shape.map((n, i) => Math.ceil(n / shardShape[i]));
  const total = counts.reduce((a, b) => a * b, 1);
  if (total === 0 || total > EARLY_SHARDS || size > EARLY_INDEX_BYTES) return null;
  const name = encoding?.name ?? "default";
  const separator = encoding?.configuration?.separator ?? (name === "v2" ? "." : "/");
  if ((name !== "default" && name !== "v2") || (separator !== "/" && separator !== "."))
    return null;
  const shards = [];
  for (let i = 0; i < total; i++) {
    const coords = [];
    for (let d = counts.length - 1, rest = i; d >= 0; d--) {
      coords.unshift(rest % counts[d]);
      rest = Math.floor(rest / counts[d]);
    }
    shards.push(name === "v2" ? coords.join(separator) : ["c", ...coords].join(separator));
  }
  return { shards, size };
}

/**
 * `response`'s body, read as it arrives, or null (the body cancelled) once it passes `limit`
 * bytes: a body without a Content-Length (chunked, or compressed) is bounded as it streams.
 */
async function bodyWithin(response, limit) {
  const parts = await partsWithin(response, limit);
  if (parts === null) return null;
  const bytes = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}

/** Work between two turns given to the event loop while a body is read (as the module's). */
const SLICE_MS = 8;

/**
 * `bodyWithin`'s parts, as they came. A body already buffered by the browser resolves each read
 * in a microtask: read without a pause, a 30 MB reference file from a fast server held the page
 * for over 100 ms, so a timer turn is taken after every slice of work.
 */
async function partsWithin(response, limit) {
  if (!response.body) return [];
  const parts = [];
  let length = 0;
  const reader = response.body.getReader();
  let slice = performance.now();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return parts;
    length += value.length;
    if (length > limit) {
      await reader.cancel();
      return null;
    }
    parts.push(value);
    if (performance.now() - slice >= SLICE_MS) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      slice = performance.now();
    }
  }
}
