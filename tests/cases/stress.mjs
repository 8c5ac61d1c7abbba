// A viewer's traffic, many times over: concurrent tile reads of one sharded image over HTTP, half
// of them aborted at random moments. Every read that was not aborted must be exact, every aborted
// one an AbortError; nothing may be left in flight at the server, and the module's memory must
// not grow with the reads. CI runs it at a size that takes seconds; the full size is
//   STRESS_READS=2000 node --test --test-name-pattern=stress tests/node/read.test.mjs tests/browser/read.test.mjs
import { equal, ok } from "../support/check.mjs";
import { sampleValue } from "../support/sample.mjs";
import { mulberry32 } from "../support/random.mjs";

const wait = (ms) => new Promise((r) => setTimeout(r, ms));

/** Runs `reads` tile reads of the sample's full resolution at once, half aborted; returns counts. */
async function storm(ctx, arr, reads, seed) {
  const { slice } = ctx.zarr;
  const next = mulberry32(seed);
  const jobs = [];
  for (let i = 0; i < reads; i++) {
    const [c, z] = [Math.floor(next() * 2), Math.floor(next() * 2)];
    const [h, w] = [8 + Math.floor(next() * 40), 8 + Math.floor(next() * 40)];
    const [y, x] = [Math.floor(next() * (1024 - h)), Math.floor(next() * (1024 - w))];
    const abortAt = next() < 0.5 ? next() * 60 : null;
    const controller = new AbortController();
    if (abortAt !== null) setTimeout(() => controller.abort("left the view"), abortAt);
    const read = arr.get([c, z, slice(y, y + h), slice(x, x + w)], { signal: controller.signal });
    jobs.push(
      read.then(
        (r) => ({ ok: true, r, c, z, y, x, h, w, controller }),
        (err) => ({ ok: false, err, controller }),
      ),
    );
  }
  const counts = { reads, aborted: 0, exact: 0, wrong: 0, otherErrors: 0, unabortedAborts: 0 };
  for (const job of await Promise.all(jobs)) {
    if (!job.ok) {
      if (job.err.name === "AbortError" && job.controller.signal.aborted) counts.aborted++;
      else if (job.err.name === "AbortError") counts.unabortedAborts++;
      else counts.otherErrors++;
      continue;
    }
    const { r, c, z, y, x, h, w } = job;
    let same = r.data.length === h * w;
    for (let i = 0; same && i < h; i++)
      for (let j = 0; j < w; j++)
        if (r.data[i * w + j] !== sampleValue(c, z, y + i, x + j, 1024)) same = false;
    if (same) counts.exact++;
    else counts.wrong++;
  }
  return counts;
}

async function settled(ctx) {
  for (let i = 0; i < 250 && (await ctx.active()) > 0; i++) await wait(20);
  return ctx.active();
}

function stressCase(workers) {
  return {
    name: `stress: concurrent tile reads of a sharded image over HTTP, half aborted at random (${workers ? "2 workers" : "main thread"})`,
    async run(ctx) {
      const { open, memoryUsage } = ctx.zarr;
      const reads = ctx.stressReads ?? 300;
      // 10 ms per request: reads overlap, and aborts land before, during and after their requests.
      const url = `${ctx.origin}/__slow/10/www/data/sample.ome.zarr`;
      const arr = await open(url, { path: "0", ...(workers ? { workers: 2 } : {}) });
      await storm(ctx, arr, reads, 1); // caches fill (shard indexes), memory grows to the task
      equal(await settled(ctx), 0, "warm-up: nothing left in flight at the server");
      const before = memoryUsage();
      const t0 = performance.now();
      const counts = await storm(ctx, arr, reads, 1); // the same reads again: growth now would be a leak
      const took = performance.now() - t0;
      const left = await settled(ctx);
      await wait(50); // the last requests' callbacks
      const after = memoryUsage();
      const memory = {
        heapBefore: before.heapBytes,
        heapAfter: after.heapBytes,
        wasmBefore: before.wasmBytes,
        wasmAfter: after.wasmBytes,
      };
      console.log(
        `stress (${workers ? "2 workers" : "main thread"}): ${JSON.stringify({ ...counts, ms: Math.round(took), leftInFlight: left, ...memory })}`,
      );
      equal(counts.wrong, 0, "reads with wrong values");
      equal(counts.otherErrors, 0, "reads that failed otherwise");
      equal(counts.unabortedAborts, 0, "reads never aborted that failed with an AbortError");
      equal(counts.exact + counts.aborted, reads, "every read exact or aborted");
      ok(counts.aborted > 0 && counts.exact > 0, "both kinds happened");
      equal(
        left,
        0,
        `nothing left in flight at the server${left ? `: ${await ctx.inFlight()}` : ""}`,
      );
      // The heap in use comes back to where it was: the reads, aborted or not, left nothing behind.
      // (Tables that grow to the peak number of requests in flight may keep a little more: less
      // than the smallest allocation, 16 bytes, per read, where a leak would take at least that.)
      // A table may also reach a new size during this storm, once (a page that has opened many
      // stores: 9 KB at once in the whole suite's page): a second storm then grows by the
      // usual little, where a leak would take its share again.
      let grew = after.heapBytes - before.heapBytes;
      if (grew >= reads * 16) {
        const again = memoryUsage();
        await storm(ctx, arr, reads, 1);
        await settled(ctx);
        await wait(50);
        const second = memoryUsage().heapBytes - again.heapBytes;
        console.log(`stress: the heap grew ${grew} bytes, then ${second} in a second storm`);
        grew = Math.max(0, second);
      }
      ok(
        grew < reads * 16,
        `the heap in use came back (${before.heapBytes} -> ${after.heapBytes} bytes; counted: ${grew})`,
      );
      arr.free();
    },
  };
}

export const stressCases = [stressCase(false), stressCase(true)];
