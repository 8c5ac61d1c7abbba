// Makes what the module imports from its glue, and what the glue imports, small:
// `node scripts/glue-imports.mjs pkg/zarr_wasm.js pkg/zarr_wasm_bg.wasm` (scripts/build.sh runs it
// on each module it builds, after scripts/guard-glue.mjs). Both for the page's download (issue 33).
//
// 1. Short names for the module's imports from its glue, in the module and in the glue at once.
//    wasm-bindgen names each import after the JS function and a hash
//    (`__wbg_set_credentials_bb5277b4006149d4`) and puts the glue's file name before each one in
//    the module's import section ("./zarr_wasm_bg.js"): about 6 KB of the module and 4 KB of the
//    glue, 3.6 KiB of the page's code gzipped. The names mean nothing at run time: the glue hands
//    the module an object of functions and the module asks for them by name. binaryen's
//    --minify-imports-and-exports-and-modules would do this but renames the exports too, which
//    scripts/guard-glue.mjs and the API go by. Only the imports of the glue's own object
//    (`import0`) are renamed.
// 2. No static import of extra.js in the glue: its two functions (the second module's loader and
//    decoder, which the Rust side imports with `raw_module = "./extra.js"`) are handed to the glue
//    by load.js (`__zarrUseExtra`) before its first instance. A glue that imports nothing is a
//    chunk of its own in a bundle, and what index.js imports is one chunk with it, where the import
//    made bundlers split errors.js, load.js and extra.js (and a helper for the namespace) into
//    two more files that every page fetched.
//
// Every edit is checked to apply exactly once, or the build fails. Running it twice changes
// nothing.
import { readFileSync, writeFileSync } from "node:fs";

const [glueFile, wasmFile] = process.argv.slice(2);
if (!glueFile || !wasmFile) throw new Error("usage: glue-imports.mjs GLUE.js MODULE.wasm");
// wasm-bindgen's name for the glue, as the module imports it: "./<out-name>_bg.js".
const GLUE_MODULE = `./${glueFile.split("/").pop().replace(/\.js$/, "")}_bg.js`;
const SHORT_MODULE = "w";

let glue = readFileSync(glueFile, "utf8");
const wasm = readFileSync(wasmFile);

/** Reads an unsigned LEB128 at `at`: [value, next offset]. */
function leb(bytes, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = bytes[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if (byte < 0x80) return [value, at];
  }
}

function writeLeb(value) {
  const out = [];
  do {
    let byte = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return Buffer.from(out);
}

const name = (text) => {
  const bytes = Buffer.from(text, "utf8");
  return Buffer.concat([writeLeb(bytes.length), bytes]);
};

/** The n-th short name: a, b, ..., Z, aa, ab, ... (letters only: plain JS object keys). */
function shortName(n) {
  const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  let out = "";
  do {
    out = letters[n % letters.length] + out;
    n = Math.floor(n / letters.length) - 1;
  } while (n >= 0);
  return out;
}

/** The bytes of an import's description (after its names), from `at`: [bytes, next offset]. */
function importDesc(bytes, at) {
  const start = at;
  const kind = bytes[at++];
  const limits = () => {
    const flags = bytes[at++];
    [, at] = leb(bytes, at);
    if (flags & 1) [, at] = leb(bytes, at);
  };
  if (kind === 0)
    [, at] = leb(bytes, at); // a function: its type
  else if (kind === 1) {
    at++; // a table: its element type, then limits
    limits();
  } else if (kind === 2)
    limits(); // a memory
  else if (kind === 3)
    at += 2; // a global: its type and mutability
  else if (kind === 4)
    [, at] = leb(bytes, at + 1); // a tag
  else throw new Error(`glue-imports: an import of unknown kind ${kind}`);
  return [bytes.subarray(start, at), at];
}

if (!wasm.subarray(0, 4).equals(Buffer.from([0, 0x61, 0x73, 0x6d])))
  throw new Error(`glue-imports: ${wasmFile} is not a WebAssembly module`);
const sections = [wasm.subarray(0, 8)];
const renames = new Map();
let at = 8;
while (at < wasm.length) {
  const id = wasm[at];
  const [size, bodyAt] = leb(wasm, at + 1);
  const end = bodyAt + size;
  if (id !== 2) {
    sections.push(wasm.subarray(at, end));
    at = end;
    continue;
  }
  let [count, p] = leb(wasm, bodyAt);
  const entries = [writeLeb(count)];
  for (; count > 0; count--) {
    const [moduleLength, moduleAt] = leb(wasm, p);
    const module = wasm.toString("utf8", moduleAt, moduleAt + moduleLength);
    const [fieldLength, fieldAt] = leb(wasm, moduleAt + moduleLength);
    const field = wasm.toString("utf8", fieldAt, fieldAt + fieldLength);
    const [desc, next] = importDesc(wasm, fieldAt + fieldLength);
    p = next;
    if (module === GLUE_MODULE) {
      if (!renames.has(field)) renames.set(field, shortName(renames.size));
      entries.push(name(SHORT_MODULE), name(renames.get(field)), desc);
    } else entries.push(name(module), name(field), desc);
  }
  if (p !== end) throw new Error("glue-imports: the import section did not parse to its end");
  const body = Buffer.concat(entries);
  sections.push(Buffer.from([2]), writeLeb(body.length), body);
  at = end;
}

if (renames.size === 0) {
  // Already done: the glue must agree.
  if (glue.includes(`"${GLUE_MODULE}": import0`))
    throw new Error(`glue-imports: ${wasmFile} has short imports but ${glueFile} has not`);
  process.exit(0);
}

function replaceOnce(from, to) {
  const n = glue.split(from).length - 1;
  if (n !== 1)
    throw new Error(
      `glue-imports: expected one ${JSON.stringify(from)} in ${glueFile}, found ${n}`,
    );
  glue = glue.replace(from, to);
}

replaceOnce(`"${GLUE_MODULE}": import0`, `${SHORT_MODULE}: import0`);
for (const [long, short] of renames) {
  // The name is the object's key and nothing else in the glue.
  if (glue.split(long).length !== 2)
    throw new Error(`glue-imports: ${long} is in ${glueFile} other than as import0's key`);
  // (A function of the glue's own, or one it takes from elsewhere as it is: extra.js's.)
  replaceOnce(`\n        ${long}: `, `\n        ${short}: `);
}
// The glue of the main builds imports extra.js; the second module's glue imports nothing.
if (glue.includes(`import * as import1 from "./extra.js"`)) {
  // What the glue's own functions call (extraDecode's begin, step and end) is imported by name;
  // each use becomes one of the object load.js hands over.
  const named = /^import \{ ([\w, ]+) \} from '\.\/extra\.js';\n/m.exec(glue);
  if (!named) throw new Error(`glue-imports: ${glueFile} imports nothing from extra.js by name`);
  replaceOnce(named[0], "");
  for (const name of named[1].split(", ")) {
    const uses = new RegExp(`(?<![\\w.])${name}(?=[.(])`, "g");
    if (!uses.test(glue)) throw new Error(`glue-imports: ${glueFile} never calls ${name}`);
    glue = glue.replace(uses, `import1.${name}`);
  }
  replaceOnce(
    `import * as import1 from "./extra.js"\n`,
    "// extra.js's loadExtra and extraDecode, from load.js (scripts/glue-imports.mjs).\n" +
      "let import1 = null;\n" +
      "export function __zarrUseExtra(functions) { import1 = functions; }\n",
  );
  if (/^import /m.test(glue)) throw new Error(`glue-imports: ${glueFile} still imports a module`);
}
writeFileSync(glueFile, glue);
writeFileSync(wasmFile, Buffer.concat(sections));
