// Writes of the benchmark's image from memory, in Node (bench/write-core.js does the measuring;
// bench/write.html the same in Chromium). `node bench/write.mjs [runs]`; bench.mjs appends its
// tables to the results.
import { readFileSync } from "node:fs";
import * as wasm from "zarr-wasm";
import * as zarrita from "zarrita";
import { CHUNK, SIDE, runWriteBench } from "./write-core.js";

export { WRITE_CODECS, writeTable } from "./write-core.js";

const here = new URL(".", import.meta.url).pathname;

/** The image: the raw array's chunks, assembled. */
function image() {
  const out = new Uint16Array(SIDE * SIDE);
  for (let ci = 0; ci < SIDE / CHUNK; ci++)
    for (let cj = 0; cj < SIDE / CHUNK; cj++) {
      const bytes = readFileSync(`${here}data/bench.zarr/raw/c/${ci}/${cj}`);
      const chunk = new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2);
      for (let r = 0; r < CHUNK; r++)
        out.set(chunk.subarray(r * CHUNK, (r + 1) * CHUNK), (ci * CHUNK + r) * SIDE + cj * CHUNK);
    }
  return out;
}

/** The write table's rows in Node (see write-core.js). */
export function writeBench(runs = 7) {
  return runWriteBench({ wasm, zarrita }, image(), runs);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { writeTable } = await import("./write-core.js");
  console.log(writeTable(await writeBench(Number(process.argv[2] ?? 7))));
}
