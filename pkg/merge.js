// mergeRanges (see zarrita.d.ts), exported by zarr-wasm/zarrita: a zarrita store whose range
// requests for one key, made at about the same time and near each other, go as one request. It
// imports nothing, so that an app using it alone bundles none of zarr-wasm.
/**
 * A zarrita store whose range requests for one key, made within a turn of the event loop of each
 * other and lying within `mergeGap` bytes (default 4096, as zarr-wasm's own reader) of each other,
 * go to the store as one request: zarrita.js asks for each inner chunk of a shard on its own. A
 * caller's AbortSignal ends its own part; the merged request is aborted once all its parts are.
 * Every other property and method is the store's own.
 */
export function mergeRanges(store, options = {}) {
  if (typeof store?.getRange !== "function")
    throw new TypeError("mergeRanges needs a zarrita store with getRange(key, range, options)");
  const mergeGap = options.mergeGap ?? 4096;
  if (!Number.isSafeInteger(mergeGap) || mergeGap < 0)
    throw new TypeError(`mergeRanges' mergeGap must be a whole number of bytes, not ${mergeGap}`);
  // The parts asked for in this turn, by key, sent together at its end.
  const waiting = new Map();
  const flush = (key) => {
    const parts = waiting.get(key).filter((p) => !p.settled);
    waiting.delete(key);
    parts.sort((a, b) => a.offset - b.offset);
    let group = [];
    let end = 0;
    for (const part of parts) {
      if (group.length > 0 && part.offset > end + mergeGap) {
        send(key, group);
        group = [];
      }
      end =
        group.length === 0 ? part.offset + part.length : Math.max(end, part.offset + part.length);
      group.push(part);
    }
    if (group.length > 0) send(key, group);
  };
  const send = (key, group) => {
    const start = group[0].offset;
    const end = group.reduce((e, p) => Math.max(e, p.offset + p.length), 0);
    const controller = new AbortController();
    for (const part of group) part.group = { controller, parts: group };
    const request = { ...group[0].options, signal: controller.signal };
    Promise.resolve()
      .then(() => store.getRange(key, { offset: start, length: end - start }, request))
      .then(
        (bytes) => {
          for (const part of group) {
            const at = part.offset - start;
            part.settle(
              true,
              bytes === undefined ? undefined : bytes.subarray(at, at + part.length),
            );
          }
        },
        (err) => group.forEach((part) => part.settle(false, err)),
      );
  };
  const getRange = (key, range, requestOptions) => {
    if (!("offset" in range) || range.length === undefined)
      return store.getRange(key, range, requestOptions);
    const signal = requestOptions?.signal;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise((resolve, reject) => {
      const part = {
        offset: range.offset,
        length: range.length,
        options: withoutSignal(requestOptions),
        settled: false,
        group: null,
        settle(fulfilled, value) {
          if (part.settled) return;
          part.settled = true;
          signal?.removeEventListener("abort", onAbort);
          fulfilled ? resolve(value) : reject(value);
        },
      };
      const onAbort = () => {
        part.settle(false, abortReason(signal));
        // The merged request goes once none of its parts waits for it.
        if (part.group?.parts.every((p) => p.settled)) part.group.controller.abort();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      if (!waiting.has(key)) {
        waiting.set(key, []);
        setTimeout(() => flush(key), 0);
      }
      waiting.get(key).push(part);
    });
  };
  return new Proxy(store, {
    get(target, name) {
      if (name === "getRange") return getRange;
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** A request's options without its signal (the merged request has its own). */
function withoutSignal(options) {
  if (!options) return undefined;
  const { signal: _, ...rest } = options;
  return rest;
}

/** What an aborted signal rejects with. */
function abortReason(signal) {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}
