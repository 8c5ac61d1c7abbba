// The options objects of the public API, checked in JS before anything is asked of the module.
// A key a call does not take is a TypeError naming it and the keys it takes: a misspelt option
// (`{ pth: "0" }`) must not be silently ignored. A value of the wrong type is a TypeError, one of
// the right type that the option does not take a RangeError, each naming the option. `undefined`
// and `null` mean the option is absent, as everywhere in the API. The module parses the values
// again as it uses them (src/bindings/options.rs); these checks are what callers see first.

/** The largest integer a JS number holds exactly. */
const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** The most bytes one buffer may have (wasm32's address space; src/buffer.rs's MAX_BUFFER). */
export const MAX_BUFFER = 2 ** 32;

/** How a value is shown in a message: short, and without calling into it. */
export function show(value) {
  if (typeof value === "string") return JSON.stringify(value.slice(0, 80));
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "function") return "a function";
  if (typeof value === "object")
    return Array.isArray(value)
      ? "an array"
      : `an object (${value.constructor?.name ?? "null prototype"})`;
  return String(value);
}

// Each check is `(value, name) => void`, throwing for a value the option does not take.

/** A value of JS type `type` (a `typeof` name), described to the caller as `what`. */
const ofType = (type, what) => (value, name) => {
  if (typeof value !== type) throw new TypeError(`${name} must be ${what}, not ${show(value)}`);
};
export const boolean = ofType("boolean", "true or false");
export const string = ofType("string", "a string");
export const func = ofType("function", "a function");
export const object = ofType("object", "an object");

/** An integer from `min` to `max`. */
export const integer =
  (min, max = MAX_SAFE) =>
  (value, name) => {
    if (typeof value !== "number")
      throw new TypeError(`${name} must be an integer from ${min} to ${max}, not ${show(value)}`);
    if (!Number.isInteger(value) || value < min || value > max)
      throw new RangeError(`${name} must be an integer from ${min} to ${max}, not ${show(value)}`);
  };
/** A size in bytes: an integer from `min` to the largest buffer. */
export const bytes = (min = 0) => integer(min, MAX_BUFFER);

/** One of `choices` (strings or numbers). */
export const oneOf =
  (...choices) =>
  (value, name) => {
    if (choices.includes(value)) return;
    const listed = choices.map((c) => JSON.stringify(c)).join(", ");
    const Kind = choices.some((c) => typeof c === typeof value) ? RangeError : TypeError;
    throw new Kind(`${name} must be one of ${listed}, not ${show(value)}`);
  };

/** Passes where any of `checks` passes; else the error of the first. */
export const either =
  (...checks) =>
  (value, name) => {
    const errors = [];
    for (const check of checks) {
      try {
        return check(value, name);
      } catch (err) {
        errors.push(err);
      }
    }
    // The error of a check whose type fitted says more than a TypeError of one whose did not.
    throw errors.find((e) => e instanceof RangeError) ?? errors[0];
  };

/** An instance of `Class`. */
export const instance = (Class, what) => (value, name) => {
  if (!(value instanceof Class)) throw new TypeError(`${name} must be ${what}, not ${show(value)}`);
};

/** An AbortSignal (or an object that behaves as one). */
export const signal = (value, name) => {
  if (
    typeof value !== "object" ||
    typeof value.aborted !== "boolean" ||
    typeof value.addEventListener !== "function"
  )
    throw new TypeError(`${name} must be an AbortSignal, not ${show(value)}`);
};

/** A URL: a string or a URL object. */
export const url = (value, name) => {
  if (typeof value !== "string" && !(value instanceof URL))
    throw new TypeError(`${name} must be a URL (a string or a URL object), not ${show(value)}`);
};

/** An object of the options `schema` names, each checked (see checkOptions). */
export const options = (schema) => (value, name) => {
  checkOptions(value, name, schema, `${name}.`);
};

/** An object whose every value passes `check` (headers: names to strings). */
export const record = (check) => (value, name) => {
  object(value, name);
  for (const [key, v] of Object.entries(value)) check(v, `${name}[${JSON.stringify(key)}]`);
};

/**
 * Checks `given`, the options of `call` ("open", "FetchStore"...), against `schema` (option name
 * -> check): a TypeError if it is not an object or has a key the schema does not name, and each
 * option's own error for a value it does not take, the option named `${prefix}${key}`. Returns
 * `given`, or `{}` for none.
 */
export function checkOptions(given, call, schema, prefix = `${call} option `) {
  if (given === undefined || given === null) return {};
  // A call's options ("open's options"), or an option that is an object of its own ("open
  // option limits").
  const whole = prefix === `${call} option ` ? `${call}'s options` : call;
  if (typeof given !== "object" || Array.isArray(given))
    throw new TypeError(`${whole} must be an object, not ${show(given)}`);
  const known = Object.keys(schema);
  // An object whose keys or values cannot be read (a Proxy, getters that throw) is refused as
  // a TypeError saying so, not with whatever it throws.
  const unreadable = (err) =>
    new TypeError(
      `${whole} cannot be read (a getter that throws, or a Proxy): ${err?.message ?? err}`,
    );
  let keys;
  try {
    keys = Object.keys(given);
  } catch (err) {
    throw unreadable(err);
  }
  for (const key of keys) {
    if (!Object.hasOwn(schema, key)) {
      const near = nearest(key, known);
      throw new TypeError(
        `${call} has no option ${JSON.stringify(key.slice(0, 40))}${near ? ` (did you mean ${JSON.stringify(near)}?)` : ""}: its options are ${known.join(", ")}`,
      );
    }
  }
  for (const key of known) {
    let value;
    try {
      value = given[key];
    } catch (err) {
      throw unreadable(err);
    }
    if (value !== undefined && value !== null) schema[key](value, `${prefix}${key}`);
  }
  return given;
}

/** The name in `names` nearest to `key` (case aside, at most two edits away), if any. */
function nearest(key, names) {
  let best = null;
  let bestDistance = 3;
  for (const name of names) {
    const d = editDistance(key.toLowerCase(), name.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return best;
}

/** Levenshtein distance, for short names only (a key of 40 characters at most is compared). */
function editDistance(a, b) {
  a = a.slice(0, 40);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(
        previous[j] + 1,
        row[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = row;
  }
  return previous[b.length];
}

// ---------------------------------------------------------------------------------------------
// The schemas of the API's options, one per call (index.d.ts documents each option).

const limits = options({
  maxChunksPerRead: integer(1),
  maxBytesPerRead: integer(1),
  maxDecodedChunkBytes: bytes(1),
  maxItemBytes: bytes(1),
});

/** open()'s options; `workers` is checked by the pool (offthread.js). */
export const OPEN = {
  path: string,
  kind: oneOf("array", "group"),
  zarrFormat: oneOf(1, 2, 3),
  consolidated: boolean,
  chunkCacheSize: bytes(),
  signal,
  limits,
  workers: () => {}, // checked with the pool (offthread.js)
  workerUrl: url,
};

export const OPEN_VECTORS = { path: string, signal };

export const GROUP_OPEN = { kind: oneOf("array", "group"), signal };

const isTypedArray = (value, name) => {
  if (!ArrayBuffer.isView(value) || value instanceof DataView)
    throw new TypeError(`${name} must be a typed array, not ${show(value)}`);
};

export const GET = {
  signal,
  concurrency: integer(1, 1024),
  onProgress: func,
  out: isTypedArray,
  bits: boolean,
  maxChunks: integer(0),
  maxBytes: integer(0),
};

export const ITERATE = { signal, concurrency: integer(1, 1024) };

export const READ = { signal };

export const PRELOAD = { full: boolean, vectors: boolean, write: boolean };

/** A shape: a list of non-negative integers. */
export const shape = (value, name) => {
  if (!Array.isArray(value))
    throw new TypeError(`${name} must be an array of integers, not ${show(value)}`);
  value.forEach((n, i) => integer(0)(n, `${name}[${i}]`));
};

export const BYTES_DECODER = { dataType: string, maxBytes: bytes(1) };

const bucket = (kind) => (value, name) => {
  if (typeof value !== "object" || !(kind in value))
    throw new TypeError(
      `${name} must be "auto", "index", "none", { s3: bucketUrl } or { gcs: bucketUrl }, not ${show(value)}`,
    );
  const bucketUrl = value[kind];
  if (typeof bucketUrl !== "string" || !/^https?:\/\//.test(bucketUrl))
    throw new RangeError(
      `${name}.${kind} must be the bucket's http(s) URL, not ${show(bucketUrl)}`,
    );
  checkOptions(value, name, { [kind]: string });
};

export const FETCH_STORE = {
  suffixRequests: boolean,
  treat403AsMissing: boolean,
  retries: integer(0, 20),
  maxRequests: integer(1, 1024),
  mergeGap: integer(0, 1_000_000_000),
  indexCacheSize: integer(1, 10_000_000),
  headers: record(string),
  credentials: oneOf("omit", "same-origin", "include"),
  fetch: func,
  cacheSize: bytes(),
  timeout: integer(0, 3_600_000),
  maxObjectBytes: bytes(1),
  redirect: oneOf("follow", "error", "manual"),
  listing: either(oneOf("auto", "index", "none"), bucket("s3"), bucket("gcs")),
  writable: boolean,
};

export const ZIP_STORE = { cacheSize: bytes() };

/** The ReferenceStore's: the FetchStore's for its requests (no listing), and its own bounds. */
const { listing: _listing, writable: _writable, ...FETCH_REQUESTS } = FETCH_STORE;
export const REFERENCE_STORE = {
  ...FETCH_REQUESTS,
  maxReferenceBytes: bytes(1),
  maxRefs: integer(1),
  urlMap: record(string),
  baseUrl: url,
};

/** An array of strings. */
const strings = (value, name) => {
  if (!Array.isArray(value))
    throw new TypeError(`${name} must be an array of strings, not ${show(value)}`);
  value.forEach((v, i) => string(v, `${name}[${i}]`));
};

/**
 * The IcechunkStore's: the FetchStore's for its requests (no listing), the version read (at most
 * one of branch, tag and snapshot: IcechunkStore checks that), the virtual chunk containers it
 * may read from, a URL prefix map and its bound on metadata files.
 */
export const ICECHUNK_STORE = {
  ...FETCH_REQUESTS,
  branch: string,
  tag: string,
  snapshot: string,
  allowedContainers: strings,
  urlMap: record(string),
  maxMetadataBytes: bytes(1),
};

// Zarr Vectors: a level's reads (the query objects are options objects too). `bbox` and `delta`
// are checked where they are used (index.js), as SelectionErrors of the query.
const names = instance(Array, "an array of names");
const any = () => {};
export const AT_LEVEL = { level: integer(0) };
export const VECTORS_READ = { level: integer(0), attributes: names };
export const VECTORS_SELECT = {
  bbox: any,
  level: integer(0),
  attributes: names,
  linkAttributes: names,
  objectIds: boolean,
};
export const CROSS_LINKS = { level: integer(0), delta: any, bbox: any };
