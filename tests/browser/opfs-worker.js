// The worker half of tests/browser/opfs.test.mjs: the same writes from a module worker, where
// FileSystemHandleStore writes through sync access handles.
import * as zarr from "/pkg/index.js";
import { folder, interruptedSet, names, writeAndRead } from "/tests/browser/opfs.js";

addEventListener("message", async ({ data: { run } }) => {
  try {
    const dir = await folder(run);
    const store = new zarr.FileSystemHandleStore(dir);
    const problems = await writeAndRead(store);
    const interrupted = await interruptedSet(store, dir);
    postMessage({
      syncAccessHandles: store.syncAccessHandles,
      problems,
      interrupted,
      names: await names(dir),
    });
  } catch (e) {
    postMessage({ error: `${e.name}: ${e.message}\n${e.stack}` });
  }
});
