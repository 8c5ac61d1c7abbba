// What a test page offers the browser tests: `window.caseNames`, and `window.runCase(name)`, which
// runs a case with `ctx` and answers `{ ok }` or `{ ok: false, error }` (thrown errors do not
// cross page.evaluate whole).
export function offerCases(cases, ctx) {
  const byName = new Map(cases.map((c) => [c.name, c]));
  window.caseNames = [...byName.keys()];
  window.runCase = async (name) => {
    try {
      await byName.get(name).run(ctx);
      return { ok: true };
    } catch (e) {
      return { ok: false, error: `${e.name}: ${e.message}\n${e.stack}` };
    }
  };
}
