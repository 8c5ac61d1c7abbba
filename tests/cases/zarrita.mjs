// zarr-wasm inside zarrita.js apps (`zarr-wasm/zarrita`), shared by Node and headless Chromium:
// zarrita 0.7.5's own read paths with zarr-wasm's decoders registered, on the whole fixture
// corpus; zarrita's stores read by zarr-wasm. `ctx.zarrita` is zarrita, `ctx.plugin` the plug-in.
import { bytesOf, deepEqual, equal, ok, rejects, sameBytes } from "../support/check.mjs";
import { chunkRequests } from "./fixtures.mjs";

// The data types zarrita reads into typed arrays of the same bytes as the manifests' files.
const SIZES = {
  bool: 1,
  int8: 1,
  uint8: 1,
  int16: 2,
  uint16: 2,
  int32: 4,
  uint32: 4,
  float32: 4,
  int64: 8,
  uint64: 8,
  float64: 8,
};

/** Runs `body` with zarr-wasm's codecs in zarrita's registry, then puts the registry back. */
async function withPlugin(ctx, body) {
  const { registry } = ctx.zarrita;
  const saved = new Map(registry);
  ctx.plugin.registerCodecs(registry);
  try {
    return await body();
  } finally {
    registry.clear();
    for (const [name, load] of saved) registry.set(name, load);
  }
}

/** zarrita's result as C-order bytes (zarrita returns Fortran-order arrays with their strides). */
function cOrderBytes({ data, shape, stride }, size) {
  const bytes = new Uint8Array(data.buffer, data.byteOffset ?? 0, data.length * size);
  const out = new Uint8Array(bytes.length);
  const index = shape.map(() => 0);
  for (let i = 0; i < data.length; i++) {
    let at = 0;
    for (let d = 0; d < shape.length; d++) at += index[d] * stride[d];
    out.set(bytes.subarray(at * size, (at + 1) * size), i * size);
    for (let d = shape.length - 1; d >= 0; d--) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

/**
 * Reads a fixture array whole with zarrita: its C-order bytes, or the codecs its registry lacks,
 * or the error. (Codecs it lacks are found first: zarrita loads an array's codecs at once, and a
 * second unknown one rejects where nothing awaits it.)
 */
async function zarritaRead(ctx, entry) {
  const zarr = ctx.zarrita;
  // zarrita reads shards itself, outside its registry.
  const missing = (await codecsOf(ctx, entry)).filter(
    (name) => name !== "sharding_indexed" && !zarr.registry.has(name),
  );
  if (missing.length > 0) return { missing };
  try {
    const store = new zarr.FetchStore(`${ctx.base}/${entry.store}`);
    const location = zarr.root(store).resolve(entry.path);
    const openFormat = (entry.zarr_format ?? 3) === 2 ? zarr.open.v2 : zarr.open.v3;
    const arr = await openFormat(location, { kind: "array" });
    return { bytes: cOrderBytes(await zarr.get(arr), SIZES[entry.dtype]) };
  } catch (error) {
    return { error };
  }
}

/** The names of every codec an array's metadata lists (a shard's inner and index codecs too), as zarrita names them. */
async function codecsOf(ctx, entry) {
  const dir = `${entry.store}/${entry.path}`;
  if ((entry.zarr_format ?? 3) === 2) {
    const meta = JSON.parse(new TextDecoder().decode(await ctx.bytes(`${dir}/.zarray`)));
    return [...(meta.filters ?? []), meta.compressor]
      .filter(Boolean)
      .filter((c) => c.id !== "fixedscaleoffset") // zarrita turns it into its v3 codecs
      .map((c) => `numcodecs.${c.id}`);
  }
  const meta = JSON.parse(new TextDecoder().decode(await ctx.bytes(`${dir}/zarr.json`)));
  const names = [];
  const walk = (codecs) => {
    for (const codec of codecs ?? []) {
      names.push(typeof codec === "string" ? codec : codec.name);
      walk(codec.configuration?.codecs);
      walk(codec.configuration?.index_codecs);
    }
  };
  walk(meta.codecs);
  return names;
}

// zarrita.js reads no Zarr v1 (nor does any other maintained reader): those arrays are left out.
const readable = (manifests) =>
  manifests
    .flatMap((m) => m.arrays)
    .filter((e) => e.dtype in SIZES && e.chunks && e.zarr_format !== 1);

export function zarritaCases(manifests) {
  return [
    {
      name: "zarrita.js 0.7.5 with registerCodecs: every fixture array zarrita reads alone it reads with the same values through zarr-wasm's decoders, and arrays whose bytes codecs zarrita lacks read too, as their writers wrote them",
      async run(ctx) {
        const entries = readable(manifests);
        const alone = [];
        for (const entry of entries) alone.push(await zarritaRead(ctx, entry));
        const plugged = await withPlugin(ctx, async () => {
          const results = [];
          for (const entry of entries) results.push(await zarritaRead(ctx, entry));
          return results;
        });
        let gained = 0;
        let both = 0;
        for (let i = 0; i < entries.length; i++) {
          const entry = entries[i];
          const what = `${entry.store}/${entry.path}`;
          const [before, after] = [alone[i], plugged[i]];
          if (after.bytes) {
            if (before.bytes) {
              // The same values as zarrita's own codecs give (where zarrita's are not the
              // writer's, that is zarrita's reading outside its codecs: fill values, say).
              sameBytes(after.bytes, before.bytes, `${what}: with the plug-in and without`);
              both++;
            } else {
              sameBytes(after.bytes, await ctx.bytes(entry.data), `${what} with the plug-in`);
              gained++;
            }
            continue;
          }
          // What zarrita could not read with the plug-in, it could not read without it either,
          // and not for want of a codec the plug-in decodes.
          ok(
            !before.bytes,
            `${what}: zarrita reads it alone but not with zarr-wasm's codecs (${after.error?.message ?? after.missing})`,
          );
          const lacked = before.missing ?? [];
          ok(
            !lacked.length || !lacked.every((n) => ctx.plugin.codecNames.includes(n)),
            `${what}: zarrita lacked only ${lacked}, which the plug-in provides, yet failed with it: ${after.error?.message ?? after.missing} (${after.error?.cause?.message})`,
          );
        }
        // Of the 248 arrays of these types, zarrita alone reads 159 in Node; with the plug-in, 22
        // more (numcodecs' checksums, bz2, lzma and base64, the registry's conditional). The rest
        // need what zarrita lacks outside bytes codecs (zfp, pcodec, packbits, reshape, n5,
        // a shard index at the start, scalars...).
        // The arrays the plug-in must add are known from their metadata alone: those whose
        // codecs zarrita lacks are all zarr-wasm's (22 of the corpus). What zarrita reads alone
        // depends a little on the platform (159 in Node, 158 in Chromium): a floor.
        const ours = alone.filter(
          (r) => r.missing?.length && r.missing.every((n) => ctx.plugin.codecNames.includes(n)),
        );
        equal(ours.length, 22, "arrays whose missing codecs are all zarr-wasm's");
        // Every one of those is read (checked above). Where zarrita's own decoder fails on the
        // platform, the plug-in reads more: Chromium's DecompressionStream stops after a gzip
        // stream's first member, which numcodecs' gzip may write several of.
        const extra = entries
          .filter((_, i) => plugged[i].bytes && !alone[i].bytes && !alone[i].missing)
          .map((e) => `${e.store}/${e.path}`);
        ok(
          extra.every((path) => path === "codecs.zarr/numcodecs/gzip_multi_member"),
          `read with the plug-in where zarrita's own codecs fail: ${extra}`,
        );
        equal(gained, ours.length + extra.length, "arrays read with the plug-in only");
        ok(both >= 150, `only ${both} arrays read both ways`);
      },
    },
    {
      name: "zarrita.js with registerCodecs: a damaged chunk's error is zarr-wasm's CodecError naming the codec; zarrita still encodes with its own codecs, and zarr-wasm reads what it wrote",
      async run(ctx) {
        const zarr = ctx.zarrita;
        await withPlugin(ctx, async () => {
          // codecs.zarr/zstd/level3's first chunk, halved, in a Map store of zarrita's.
          const files = new Map();
          files.set("/zarr.json", await ctx.bytes("codecs.zarr/zarr.json"));
          files.set("/zstd/level3/zarr.json", await ctx.bytes("codecs.zarr/zstd/level3/zarr.json"));
          const chunk = await ctx.bytes("codecs.zarr/zstd/level3/c/0/0");
          files.set("/zstd/level3/c/0/0", chunk.slice(0, chunk.length >> 1));
          const arr = await zarr.open.v3(zarr.root(files).resolve("zstd/level3"), {
            kind: "array",
          });
          let error = null;
          try {
            await zarr.get(
              arr,
              arr.shape.map(() => zarr.slice(0, 1)),
            );
          } catch (e) {
            error = e;
          }
          ok(error, "the damaged chunk's read rejected");
          const messages = [];
          for (let e = error; e; e = e.cause) messages.push(`${e.name}: ${e.message}`);
          ok(
            messages.some((m) => /^CodecError: codec zstd failed to decode a chunk: /.test(m)),
            `zarr-wasm's error among the causes: ${messages.join(" <- ")}`,
          );

          // zarr-wasm only decodes: zarrita writes zstd and blosc with the codecs it had
          // registered (numcodecs.js's), and both readers read back what it wrote.
          const written = new Map();
          const values = Int32Array.from({ length: 60 }, (_, i) => i * 7 - 100);
          for (const codec of [
            { name: "zstd", configuration: { level: 5, checksum: false } },
            {
              name: "blosc",
              configuration: {
                cname: "lz4",
                clevel: 5,
                shuffle: "shuffle",
                typesize: 4,
                blocksize: 0,
              },
            },
          ]) {
            const path = `written/${codec.name}`;
            const out = await zarr.create(zarr.root(written).resolve(path), {
              shape: [6, 10],
              chunkShape: [4, 4],
              dtype: "int32",
              codecs: [{ name: "bytes", configuration: { endian: "little" } }, codec],
            });
            await zarr.set(out, null, { data: values, shape: [6, 10], stride: [10, 1] });
            const back = await zarr.get(
              await zarr.open.v3(zarr.root(written).resolve(path), { kind: "array" }),
            );
            deepEqual([...back.data], [...values], `${codec.name}: zarrita reads what it wrote`);
          }
          const store = ctx.plugin.zarritaStore(written);
          for (const name of ["zstd", "blosc"]) {
            const got = await (await ctx.zarr.open(store, { path: `written/${name}` })).get();
            sameBytes(
              bytesOf(got.data),
              bytesOf(values),
              `${name}: zarr-wasm reads what zarrita wrote`,
            );
          }
        });
      },
    },
    {
      name: "zarrita.js with registerCodecs: fixed encoded sizes (a shard index's) are zarr-wasm's; unknown names register nothing; registering twice keeps zarrita's encoder",
      async run(ctx) {
        const { codecNames, registerCodecs } = ctx.plugin;
        // A configuration each codec accepts.
        const configurations = {
          blosc: { cname: "zstd", clevel: 5, shuffle: "shuffle", typesize: 2, blocksize: 0 },
          "numcodecs.blosc": { cname: "zstd", clevel: 5, shuffle: 1, blocksize: 0 },
          conditional: { header_bits: 8, codecs: [{ name: "gzip", configuration: { level: 1 } }] },
          gzip: { level: 1 },
          zstd: { level: 1, checksum: false },
        };
        const registry = registerCodecs(new Map());
        deepEqual([...registry.keys()].sort(), [...codecNames].sort(), "registered names");
        let fixed = 0;
        for (const name of codecNames) {
          const configuration = configurations[name] ?? {};
          const Codec = await registry.get(name)();
          const codec = Codec.fromConfig(configuration, { dataType: "uint16", shape: [10] });
          const decoder = await ctx.zarr.bytesDecoder(
            { name, configuration },
            { dataType: "uint16" },
          );
          equal(
            codec.computeEncodedSize?.(1000),
            decoder.encodedSize(1000),
            `${name}'s encoded size`,
          );
          if (decoder.encodedSize(1000) !== undefined) fixed++;
        }
        equal(fixed, 7, "codecs of fixed encoded size (six checksums and shuffle)");

        let error = null;
        const partial = new Map();
        try {
          registerCodecs(partial, { names: ["zstd", "snappy"] });
        } catch (e) {
          error = e;
        }
        ok(error instanceof TypeError && /"snappy"/.test(error.message), `unknown name: ${error}`);
        equal(partial.size, 0, "nothing registered when a name is unknown");
        for (const bad of [{}, null]) {
          error = null;
          try {
            registerCodecs(bad);
          } catch (e) {
            error = e;
          }
          ok(error instanceof TypeError, `a registry without get and set: ${bad}`);
        }

        // Registered twice, encoding still reaches the codec zarrita had.
        const encoded = [];
        const original = () => ({
          fromConfig: () => ({ encode: (bytes) => (encoded.push(bytes.length), bytes) }),
        });
        const once = registerCodecs(new Map([["zstd", original]]), { names: ["zstd"] });
        const twice = registerCodecs(once, { names: ["zstd"] });
        const Zstd = await twice.get("zstd")();
        await Zstd.fromConfig({ level: 1 }, { dataType: "uint8" }).encode(new Uint8Array(3));
        deepEqual(encoded, [3], "zarrita's own encoder, reached once");
        const Gzip = await registerCodecs(new Map(), { names: ["gzip"] }).get("gzip")();
        let encodeError = null;
        try {
          await Gzip.fromConfig({ level: 1 }, { dataType: "uint8" }).encode(new Uint8Array(3));
        } catch (e) {
          encodeError = e;
        }
        ok(/does not encode it/.test(encodeError?.message), `no encoder: ${encodeError?.message}`);
      },
    },
    {
      name: "mergeRanges: a zarrita.js app reading the sharded sample makes at most 10 requests (zarrita alone makes more) and reads the same values; an abort ends only its own part",
      async run(ctx) {
        const zarr = ctx.zarrita;
        const url = `${ctx.origin}/www/data/sample.ome.zarr`;
        // The view a viewer opens: the first plane of the lowest level whole, then 512 x 512 of
        // the finest's, as four 256 x 256 tiles at once.
        const view = async (store) => {
          const root = zarr.root(store);
          const low = await zarr.open(root.resolve("1"), { kind: "array" });
          const fine = await zarr.open(root.resolve("0"), { kind: "array" });
          const lowest = await zarr.get(low, [0, 0, null, null]);
          const tiles = await Promise.all(
            [0, 256].flatMap((r) =>
              [0, 256].map((c) =>
                zarr.get(fine, [0, 0, zarr.slice(r, r + 256), zarr.slice(c, c + 256)]),
              ),
            ),
          );
          return [lowest, ...tiles].map((r) => Array.from(r.data));
        };
        const measured = async (store) => {
          await ctx.clearLog();
          const values = await withPlugin(ctx, () => view(store));
          const requests = (await ctx.requests()).filter((r) => r.path.includes("sample.ome.zarr"));
          return { values, requests: requests.length };
        };
        const alone = await measured(new zarr.FetchStore(url));
        const merged = await measured(ctx.plugin.mergeRanges(new zarr.FetchStore(url)));
        console.log(
          `mergeRanges on the sharded sample: ${merged.requests} requests, zarrita alone ${alone.requests}`,
        );
        ok(merged.requests <= 10, `${merged.requests} requests through mergeRanges`);
        ok(merged.requests < alone.requests, `zarrita alone made ${alone.requests}`);
        deepEqual(merged.values, alone.values, "the same values");

        // Parts asked for together: one request; an abort ends its own part alone.
        const calls = [];
        const bytes = Uint8Array.from({ length: 10_000 }, (_, i) => i % 251);
        const fake = {
          url: "fake",
          getRange: async (key, range, options) => {
            calls.push([key, range, options?.signal]);
            await new Promise((r) => setTimeout(r, 20));
            if (options?.signal?.aborted) throw options.signal.reason;
            return bytes.slice(range.offset, range.offset + range.length);
          },
        };
        const store = ctx.plugin.mergeRanges(fake, { mergeGap: 100 });
        equal(store.url, "fake", "the store's own properties");
        const stop = new AbortController();
        const parts = [
          store.getRange("/k", { offset: 0, length: 10 }),
          store.getRange("/k", { offset: 50, length: 10 }, { signal: stop.signal }),
          store.getRange("/k", { offset: 90, length: 20 }),
          store.getRange("/k", { offset: 5000, length: 4 }),
          store.getRange("/other", { offset: 0, length: 4 }),
        ];
        stop.abort();
        const settled = await Promise.allSettled(parts);
        deepEqual(
          calls.map(([k, r]) => [k, r.offset, r.length]).sort(),
          [
            ["/k", 0, 110],
            ["/k", 5000, 4],
            ["/other", 0, 4],
          ].sort(),
          "three requests: the near parts of /k merged",
        );
        equal(settled[1].status, "rejected", "the aborted part");
        equal(settled[1].reason?.name, "AbortError", "rejects with an AbortError");
        deepEqual(Array.from(settled[0].value), Array.from(bytes.slice(0, 10)), "part 0");
        deepEqual(Array.from(settled[2].value), Array.from(bytes.slice(90, 110)), "part 2");
        deepEqual(Array.from(settled[3].value), Array.from(bytes.slice(5000, 5004)), "part 3");
        // Every part of a merged request aborted: the request itself is.
        const all = new AbortController();
        calls.length = 0;
        const both = [
          store.getRange("/k", { offset: 0, length: 10 }, { signal: all.signal }),
          store.getRange("/k", { offset: 20, length: 10 }, { signal: all.signal }),
        ];
        await new Promise((r) => setTimeout(r, 5));
        all.abort();
        const gone = await Promise.allSettled(both);
        ok(
          gone.every((s) => s.status === "rejected"),
          "both parts rejected",
        );
        equal(calls.length, 1, "one merged request, sent before the abort");
        ok(calls[0][2]?.aborted, "the merged request is aborted with its last part");
      },
    },
    {
      name: "zarrita's stores read by zarr-wasm: its FetchStore (shard indexes by suffix range requests through it, inner chunks by ranges), a Map of its keys, and an abort through them",
      async run(ctx) {
        const zarr = ctx.zarrita;
        const manifest = manifests.flatMap((m) => m.arrays);
        const entry = manifest.find(
          (e) => e.store === "codecs.zarr" && e.path === "sharding/index_end",
        );
        ok(entry, "the sharded fixture is in the manifest");
        // zarrita's FetchStore, its calls recorded.
        const fetchStore = new zarr.FetchStore(`${ctx.base}/codecs.zarr`);
        const ranges = [];
        const getRange = fetchStore.getRange.bind(fetchStore);
        fetchStore.getRange = (key, range, options) => {
          ranges.push([key, range]);
          return getRange(key, range, options);
        };
        const store = ctx.plugin.zarritaStore(fetchStore);
        ok(
          store.url.startsWith(`${ctx.base}/codecs.zarr`),
          `the store's URL names it: ${store.url}`,
        );
        const arr = await ctx.zarr.open(store, { path: entry.path });
        sameBytes(
          bytesOf((await arr.get()).data),
          await ctx.bytes(entry.data),
          "a sharded array through FetchStore",
        );
        // One element: the shard's index (zarr-wasm asks for the last bytes; zarrita's FetchStore
        // asks the server with a HEAD and a range), then the inner chunk's range.
        ranges.length = 0;
        await ctx.clearLog();
        const one = await arr.get([zarr.slice(0, 1), zarr.slice(0, 1)]);
        equal(one.data[0], new Uint16Array((await ctx.bytes(entry.data)).buffer)[0], "element 0");
        deepEqual(
          ranges.map(([key, range]) => [key, Object.keys(range).sort()]),
          [
            ["/sharding/index_end/c/0/0", ["suffixLength"]],
            ["/sharding/index_end/c/0/0", ["length", "offset"]],
          ],
          "the ranges zarr-wasm asked zarrita's store for",
        );
        const log = chunkRequests(await ctx.requests());
        ok(
          log.every((r) => r.method === "HEAD" || r.range),
          `no whole shard fetched: ${JSON.stringify(log.map((r) => [r.method, r.path, r.range]))}`,
        );

        // A Map of zarrita's keys ("/zarr.json"): whole values, ranges cut from them.
        const files = new Map();
        for (const key of await ctx.list("codecs.zarr/sharding/index_end"))
          files.set(
            `/sharding/index_end/${key}`,
            await ctx.bytes(`codecs.zarr/sharding/index_end/${key}`),
          );
        files.set("/zarr.json", await ctx.bytes("codecs.zarr/zarr.json"));
        const fromMap = await ctx.zarr.open(ctx.plugin.zarritaStore(files), { path: entry.path });
        sameBytes(bytesOf((await fromMap.get()).data), await ctx.bytes(entry.data), "from a Map");

        // An abort: the signal reaches the zarrita store's request, the read rejects with an
        // AbortError, and the store's next read works.
        const controller = new AbortController();
        let abortsSeen = 0;
        const slow = ctx.plugin.zarritaStore({
          url: "slow",
          get: (key, options) =>
            new Promise((resolve, reject) => {
              const timer = setTimeout(() => resolve(files.get(key)), 5000);
              options?.signal?.addEventListener("abort", () => {
                abortsSeen++;
                clearTimeout(timer);
                reject(options.signal.reason);
              });
            }),
        });
        const fast = ctx.plugin.zarritaStore({ get: (key) => files.get(key) });
        const opened = await ctx.zarr.open(fast, { path: entry.path });
        const slowArr = await ctx.zarr.open(
          {
            get: (key, options) =>
              key.endsWith("zarr.json") ? fast.get(key) : slow.get(key, options),
          },
          { path: entry.path },
        );
        const reading = slowArr.get(null, { signal: controller.signal });
        setTimeout(() => controller.abort(), 50);
        await rejects(reading, "AbortError", [], "aborted read through a zarrita store");
        ok(abortsSeen > 0, "the zarrita store's requests saw the abort");
        sameBytes(
          bytesOf((await opened.get()).data),
          await ctx.bytes(entry.data),
          "after the abort",
        );
      },
    },
  ];
}
