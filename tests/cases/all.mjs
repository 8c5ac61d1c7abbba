// Every shared case, in the order Node (tests/node/read.test.mjs) and headless Chromium
// (tests/browser/read.test.mjs, page.html) register them. One file per subject:
// read.mjs (v3 reads), sharded.mjs, http.mjs, read_v2.mjs, extra.mjs, gdal.mjs (GDAL's Zarr),
// stores.mjs, references.mjs (kerchunk references), icechunk.mjs (Icechunk repositories), api.mjs,
// workers.mjs, vectors.mjs, safety.mjs, stress.mjs, zarrita.mjs (zarr-wasm inside zarrita.js), viv.mjs (zarr-wasm
// as Viv's loader), ome.mjs (zarr-wasm/ome), write.mjs (writing); fixtures.mjs holds what they compare against.
import { apiCases } from "./api.mjs";
import { extraCases } from "./extra.mjs";
import { wholeArrayCase } from "./fixtures.mjs";
import { gdalCases } from "./gdal.mjs";
import { hostileValueCases } from "./hostile_values.mjs";
import { httpCases } from "./http.mjs";
import { icechunkCases } from "./icechunk.mjs";
import { readCases } from "./read.mjs";
import { referenceCases } from "./references.mjs";
import { v2Cases } from "./read_v2.mjs";
import { safetyCases } from "./safety.mjs";
import { shardedCases } from "./sharded.mjs";
import { storeCases } from "./stores.mjs";
import { stressCases } from "./stress.mjs";
import { vectorCases } from "./vectors.mjs";
import { omeCases } from "./ome.mjs";
import { vivCases } from "./viv.mjs";
import { workerCases } from "./workers.mjs";
import { writeCases } from "./write.mjs";
import { zarritaCases } from "./zarrita.mjs";

/** The fixtures' manifests, below tests/fixtures/. */
export const MANIFESTS = [
  "v3.expected.json",
  "v2.expected.json",
  "v2_zarr3.expected.json",
  "zarrs.expected.json",
  "registry.expected.json",
  "extra.expected.json",
  "v1.expected.json",
  "writers.expected.json",
];

/** The cases that decode: every fixture array read whole, and the v3 and v2 read cases. */
export function decodingCases(manifests) {
  return [
    ...manifests.flatMap((m) => m.arrays).map(wholeArrayCase),
    ...readCases,
    ...shardedCases,
    ...httpCases,
    ...v2Cases,
    ...extraCases,
    ...gdalCases,
  ];
}

/** Every case, given the fixtures' manifests (MANIFESTS, parsed, in that order). */
export function allCases(manifests) {
  return [
    ...decodingCases(manifests),
    ...storeCases,
    ...referenceCases,
    ...icechunkCases,
    ...zarritaCases(manifests),
    ...vivCases,
    ...omeCases,
    ...apiCases,
    ...workerCases(manifests, MANIFESTS),
    ...vectorCases,
    ...safetyCases,
    ...hostileValueCases,
    ...writeCases,
    ...stressCases,
  ];
}
