// The error classes of zarr-wasm: every rejection is one of these, so callers can test with
// `instanceof`; each message names the key or URL and what was wrong. Shared by the API and the
// worker pool (a worker's error crosses to the main thread as its name, message and status).

/** The base class of every error zarr-wasm rejects with. */
export class ZarrError extends Error {}
/** No Zarr node (no zarr.json, .zarray or .zgroup) at the path; no consolidated metadata where asked for. */
export class NotFoundError extends ZarrError {}
/** Metadata that is not JSON or not valid Zarr. */
export class MetadataError extends ZarrError {}
/** Valid Zarr that uses something not implemented (a codec, data type, grid...). */
export class UnsupportedError extends ZarrError {}
/** A chunk that cannot be decoded: the message names the codec, the chunk and the problem. */
export class CodecError extends ZarrError {}
/** A store that could not deliver bytes; `status` is the HTTP status where a server answered one. */
export class StoreError extends ZarrError {
  constructor(message, options) {
    super(message, options);
    this.status = options?.status ?? null;
  }
}
/** A selection, chunk coordinate, path or option that does not fit. */
export class SelectionError extends ZarrError {}
/** The call's AbortSignal was aborted. */
export class AbortError extends ZarrError {}
/**
 * The WebAssembly module failed (a trap) and was replaced by a fresh instance: the calls in flight
 * were abandoned; nodes opened before open themselves again on their next read.
 */
export class ResetError extends ZarrError {}
/** A worker pool could not run the call (a worker failed or could not start; the pool was terminated). */
export class WorkerError extends ZarrError {}

/**
 * The error a store rejects with when its `signal` aborts: the signal's reason where that is an
 * AbortError, else a DOMException named AbortError (as `fetch` rejects).
 */
export function abortErrorOf(signal) {
  return signal.reason instanceof Error && signal.reason.name === "AbortError"
    ? signal.reason
    : new DOMException(`aborted (${signal.reason})`, "AbortError");
}

export const ERRORS = {
  NotFoundError,
  MetadataError,
  UnsupportedError,
  CodecError,
  StoreError,
  SelectionError,
  AbortError,
  ResetError,
  WorkerError,
};
// Names set here, not taken from the classes: minifiers rename classes.
for (const [name, Class] of Object.entries({ ZarrError, ...ERRORS })) {
  Object.defineProperty(Class.prototype, "name", {
    value: name,
    writable: true,
    configurable: true,
  });
}

/** The error a wasm call rejected with, as an instance of its class (other errors pass through). */
export function typed(err) {
  const Class = err instanceof Error && !(err instanceof ZarrError) ? ERRORS[err.name] : undefined;
  return Class ? new Class(err.message, { status: err.status, cause: err }) : err;
}

/** An error as plain data, to post from a worker. */
export function errorToData(err) {
  return {
    name: err?.name ?? "Error",
    message: err?.message ?? String(err),
    status: err?.status ?? null,
  };
}

/** The error a worker posted, as an instance of its class; others (a TypeError...) become ZarrErrors naming `label`. */
export function errorFromData({ name, message, status }, label) {
  // The worker's own instance failed and was replaced; this thread's instance is untouched, so a
  // ResetError here would tell the caller something false.
  if (name === "ResetError")
    return new WorkerError(`${label ?? "a worker"}: in the worker: ${message}`, { status });
  const Class = ERRORS[name] ?? (name === "ZarrError" ? ZarrError : null);
  return Class
    ? new Class(message, { status })
    : new ZarrError(`${label ?? "a worker"}: ${name}: ${message}`, { status });
}
