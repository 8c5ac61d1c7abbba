// The wasm modules' size budgets (bench/budgets.mjs), checked on the modules this run built: a
// module that grows past its budget fails the test command, not only `npm run bench`.
import { test } from "node:test";
import { ok } from "node:assert/strict";
import { sizeBudgets } from "../../bench/budgets.mjs";

for (const { what, file, bytes, budget } of sizeBudgets()) {
  test(`size: ${file} (${what}) is within its budget`, () => {
    const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
    ok(bytes > 0, `${file} is empty`);
    ok(
      bytes <= budget,
      `${file} is ${kib(bytes)} gzipped, over its budget of ${kib(budget)}: make it smaller, or raise the budget in bench/budgets.mjs with the reason`,
    );
  });
}
