// What a shared case gets: the library, where the fixtures are, and the test server's request log.
// `stressReads`: how many reads the stress cases make (their CI size where not given);
// `zarrita` and `plugin`: zarrita.js and zarr-wasm/zarrita, for zarrita.mjs; `viv`: zarr-wasm/viv,
// for viv.mjs; `ome`: zarr-wasm/ome, for ome.mjs.
export function makeContext(zarr, origin, { stressReads, zarrita, plugin, viv, ome } = {}) {
  const base = `${origin}/tests/fixtures`;
  return {
    zarr,
    zarrita,
    plugin,
    viv,
    ome,
    origin,
    base,
    stressReads,
    /** Requests the server saw since the last clearLog(), in order. */
    requests: async () => (await fetch(`${origin}/__log`)).json(),
    clearLog: async () => void (await fetch(`${origin}/__log/clear`)).text(),
    /**
     * Has the server answer for the file at `path` (below its root, e.g. "/tests/fixtures/...")
     * with `bytes` from now on: a store written meanwhile. Ended by clearOverrides().
     */
    override: async (path, bytes) =>
      void (
        await fetch(`${origin}/__override?path=${encodeURIComponent(path)}`, {
          method: "POST",
          body: bytes,
        })
      ).text(),
    clearOverrides: async () => void (await fetch(`${origin}/__override/clear`)).text(),
    /** Requests the server is still working on. */
    active: async () => Number(await (await fetch(`${origin}/__active`)).text()),
    // The requests in progress at the server, for a failure's message.
    inFlight: async () => JSON.stringify(await (await fetch(`${origin}/__active/list`)).json()),
    /** A fixture file's bytes. */
    bytes: async (rel) => new Uint8Array(await (await fetch(`${base}/${rel}`)).arrayBuffer()),
    /** Every file below a fixture directory (keys relative to it), from the server's index pages. */
    list: async (rel) => {
      const keys = [];
      const walk = async (dir) => {
        const page = await (await fetch(`${base}/${rel}/${dir}`)).text();
        for (const [, href] of page.matchAll(/href="([^"]+)"/g)) {
          const name = decodeURIComponent(href);
          if (name.endsWith("/")) await walk(dir + name);
          else keys.push(dir + name);
        }
      };
      await walk("");
      return keys;
    },
  };
}
