// Whole-array reads of one array per codec with zarr-wasm and with zarrita.js, readers alternating,
// medians of the timed runs. Web APIs only: runs the same in Node (bench.mjs) and in Chromium
// (codecs.html). Both readers' results must be identical, or it throws.

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export function sameBytes(a, b) {
  const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/**
 * Answers `fetch` for `origin` from `files` (a Map from path to bytes), so that a read costs what
 * the reader itself does and not HTTP; both readers call the global fetch, so both are served the
 * same way. Other origins go to the network. Returns a function that puts the network fetch back.
 */
export function serveFromMemory(origin, files) {
  const networkFetch = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const target = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
    if (target.origin !== origin) return networkFetch(input, init);
    const body = files.get(target.pathname);
    return body ? new Response(body) : new Response(null, { status: 404 });
  };
  return () => {
    globalThis.fetch = networkFetch;
  };
}

/**
 * Where zarr-wasm's time goes, as the mean of `runs` more reads with the module's timings on (a
 * second set of reads, so that the clock reads do not touch the medians above): milliseconds per
 * read decoding, assembling and copying out, and the rest of the wall time (fetching, the JS
 * around it, waiting).
 */
async function timeSplit(zw, read, runs) {
  await zw.__timingsForBench(true);
  let wall = 0;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await read();
    wall += performance.now() - t0;
  }
  const { decode, assemble, copyOut } = await zw.__timingsForBench(false);
  const per = (x) => x / runs;
  return {
    wall: per(wall),
    decode: per(decode),
    assemble: per(assemble),
    copyOut: per(copyOut),
    rest: per(wall - decode - assemble - copyOut),
  };
}

/**
 * zarrita's array at `path` below `base` with `plugin`'s codecs (zarr-wasm/zarrita) in its
 * registry while the array's codecs load (on its first read), so that the other zarrita reader
 * keeps numcodecs.js's: the registry is put back after.
 */
async function zarritaWithPlugin(zarrita, plugin, base, path) {
  const saved = new Map(zarrita.registry);
  plugin.registerCodecs(zarrita.registry);
  try {
    const arr = await zarrita.open(zarrita.root(new zarrita.FetchStore(base)).resolve(path), {
      kind: "array",
    });
    await zarrita.get(arr);
    return arr;
  } finally {
    zarrita.registry.clear();
    for (const [name, load] of saved) zarrita.registry.set(name, load);
  }
}

/**
 * For each `[path, label]` of `codecs` below `base`: `{ path, label, bytes, ms, split }`, `ms` per
 * reader, `split` zarr-wasm's time split (`timeSplit`). `scalar`, where given, is the package
 * built without simd128 (scripts/build.sh --scalar), read as a third reader, "zarr-wasm scalar";
 * `plugin`, where given, is zarr-wasm/zarrita, and zarrita with it one more reader,
 * "zarrita.js + zarr-wasm codecs".
 */
export async function measureCodecs({ zw, zarrita, scalar, plugin, base, codecs, runs, warmup }) {
  const zarrWasm = (module) => async (path) => {
    const arr = await module.open(base, { path });
    return () => arr.get();
  };
  const readers = {
    "zarr-wasm": zarrWasm(zw),
    ...(scalar ? { "zarr-wasm scalar": zarrWasm(scalar) } : {}),
    "zarrita.js": async (path) => {
      const arr = await zarrita.open(zarrita.root(new zarrita.FetchStore(base)).resolve(path), {
        kind: "array",
      });
      return () => zarrita.get(arr);
    },
    ...(plugin
      ? {
          "zarrita.js + zarr-wasm codecs": async (path) => {
            const arr = await zarritaWithPlugin(zarrita, plugin, base, path);
            return () => zarrita.get(arr);
          },
        }
      : {}),
  };
  const rows = [];
  for (const [path, label] of codecs) {
    const read = {};
    for (const [name, make] of Object.entries(readers)) read[name] = await make(path);
    const first = {};
    for (const name of Object.keys(read)) first[name] = await read[name]();
    const [a, ...others] = Object.values(first);
    if (others.some((b) => !sameBytes(a.data, b.data) || a.shape.join() !== b.shape.join())) {
      throw new Error(`${path}: the readers disagree`);
    }
    const times = Object.fromEntries(Object.keys(read).map((n) => [n, []]));
    for (let i = 0; i < warmup + runs; i++) {
      // Each reader first, middle and last in turn.
      const names = Object.keys(read);
      for (const name of names.map((_, k) => names[(k + i) % names.length])) {
        const t0 = performance.now();
        await read[name]();
        if (i >= warmup) times[name].push(performance.now() - t0);
      }
    }
    const ms = Object.fromEntries(Object.entries(times).map(([n, t]) => [n, median(t)]));
    rows.push({
      path,
      label,
      bytes: a.data.byteLength,
      ms,
      split: await timeSplit(zw, read["zarr-wasm"], runs),
    });
  }
  return rows;
}
