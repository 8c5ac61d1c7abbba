// The scale cases (tests/cases/scale.mjs) in headless Chromium, in a page of their own.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { startServer } from "../support/server.mjs";
import { bundleZarrita, launchChromium, openPage } from "../support/browser.mjs";
import { scaleCases } from "../cases/scale.mjs";

const repo = new URL("../../", import.meta.url).pathname;
const names = scaleCases.map((c) => c.name);
let server, browser, page;

before(async () => {
  execFileSync("bash", [`${repo}/scripts/make_scale_data.sh`], { stdio: "inherit" });
  await bundleZarrita(repo);
  server = await startServer({ mounts: { "/": repo } });
  browser = await launchChromium();
  ({ page } = await openPage(browser, `${server.url}/tests/browser/scale.html`));
  page.on("console", (m) => m.type() === "log" && console.log(`chromium: ${m.text()}`));
  await page.waitForFunction(() => window.runCase !== undefined, null, { timeout: 20000 });
  assert.deepEqual(await page.evaluate(() => window.caseNames), names);
});
after(async () => {
  await browser?.close();
  await server?.close();
});

for (const name of names) {
  test(`chromium: ${name}`, async () => {
    const result = await page.evaluate((n) => window.runCase(n), name);
    assert.ok(result.ok, result.error);
  });
}
