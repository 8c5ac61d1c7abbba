// Takes the README's screenshot (docs/viewer.png): the built viewer on the large sample (or the
// small one), zoomed in on an organoid's edge, in headless Chromium. Run after scripts/start.sh
// has built the viewer: `node scripts/screenshot.mjs`.
import { startServer } from "../tests/support/server.mjs";
import { launchChromium, openPage } from "../tests/support/browser.mjs";

const repo = new URL("..", import.meta.url).pathname;
const server = await startServer({
  mounts: { "/": `${repo}/www/dist`, "/data/": `${repo}/www/data` },
});
const browser = await launchChromium();
try {
  const { page, errors } = await openPage(browser, `${server.url}/`);
  await page.setViewportSize({ width: 1280, height: 760 });
  await page.waitForSelector("body[data-state=drawn]", { timeout: 60000 });
  const side = await page.evaluate(() => window.viewer.state.image.shape[1]);
  await page.evaluate(async (s) => {
    window.viewer.setView({ x: s * 0.07, y: s * 0.42, scale: 2560 / s });
    await window.viewer.idle();
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  }, side);
  await page.screenshot({ path: `${repo}/docs/viewer.png` });
  if (errors.length) throw new Error(errors.join("\n"));
  console.log("docs/viewer.png");
} finally {
  await browser.close();
  await server.close();
}
