// Assertions that run in Node and in the browser alike (the shared cases use no node:assert).

function show(v) {
  if (typeof v === "bigint") return `${v}n`;
  try {
    return JSON.stringify(v, (_, x) => (typeof x === "bigint" ? `${x}n` : x));
  } catch {
    return String(v);
  }
}

export function ok(condition, message) {
  if (!condition) throw new Error(message);
}

export function equal(actual, expected, what) {
  if (!Object.is(actual, expected))
    throw new Error(`${what}: expected ${show(expected)}, got ${show(actual)}`);
}

export function deepEqual(actual, expected, what) {
  if (show(actual) !== show(expected))
    throw new Error(`${what}: expected ${show(expected)}, got ${show(actual)}`);
}

/** The bytes of a typed array (little endian on every platform these tests run on). */
export function bytesOf(typed) {
  return new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);
}

export function sameBytes(actual, expected, what) {
  equal(actual.length, expected.length, `${what}: byte length`);
  for (let i = 0; i < actual.length; i++) {
    if (actual[i] !== expected[i])
      throw new Error(`${what}: first difference at byte ${i} (${actual[i]} != ${expected[i]})`);
  }
}

/** Awaits `promise`, which must reject with an Error named `name` whose message matches every pattern. */
export async function rejects(promise, name, patterns, what) {
  let error = null;
  try {
    await promise;
  } catch (e) {
    error = e;
  }
  ok(error !== null, `${what}: expected a rejection, the promise resolved`);
  ok(error instanceof Error, `${what}: rejected with a non-Error ${show(error)}`);
  equal(error.name, name, `${what}: error name (message: ${error.message})`);
  // The name comes from the error's class (errors.js names each class's prototype), not from a
  // plain Error given that name: `instanceof` works for callers.
  equal(Object.getPrototypeOf(error).name, name, `${what}: the class of ${name}`);
  for (const p of patterns)
    ok(p.test(error.message), `${what}: message ${show(error.message)} does not match ${p}`);
  return error;
}
