// The page of tests/browser/viv.test.mjs, bundled by esbuild (bundleViv in tests/support/browser.mjs)
// into target/test-bundles/viv/: Viv 0.21's MultiscaleImageLayer in a deck.gl Deck with an
// OrthographicView, drawing the committed sample through zarr-wasm/viv (or, for comparison, Viv's
// own loader, loadOmeZarr with zarrita). The test drives it through window.vivTest.
import { Deck, OrthographicView } from "@deck.gl/core";
import { MultiscaleImageLayer } from "@vivjs/layers";
import { SIGNAL_ABORTED as VIV_SIGNAL_ABORTED, loadOmeZarr } from "@vivjs/loaders";
import { SIGNAL_ABORTED, openPixelSources } from "zarr-wasm/viv";
import { sampleValue } from "../support/sample.mjs";

const describe = (e) =>
  typeof e === "string" ? `string ${e}` : `${e?.name ?? typeof e}: ${e?.message ?? e}`;

// What happened to each tile read, and every error the page saw.
const log = {
  getTile: 0,
  getRaster: 0,
  resolved: 0,
  rejectedAborted: 0, // rejected with SIGNAL_ABORTED once its signal had aborted
  rejectedOther: [],
  signalsAborted: 0,
  tileErrors: [],
  errors: [],
};
addEventListener("unhandledrejection", (e) => log.errors.push(`unhandled: ${describe(e.reason)}`));
addEventListener("error", (e) => log.errors.push(`error: ${e.message}`));

/** Counts each source's reads and how they end; records what reaches onTileError. */
function instrument(sources) {
  for (const source of sources) {
    const getTile = source.getTile.bind(source);
    source.getTile = async (sel) => {
      log.getTile++;
      sel.signal?.addEventListener("abort", () => log.signalsAborted++, { once: true });
      try {
        const tile = await getTile(sel);
        log.resolved++;
        return tile;
      } catch (e) {
        if (e === SIGNAL_ABORTED && sel.signal?.aborted) log.rejectedAborted++;
        else log.rejectedOther.push(describe(e));
        throw e;
      }
    };
    const getRaster = source.getRaster.bind(source);
    source.getRaster = (sel) => {
      log.getRaster++;
      return getRaster(sel);
    };
    const onTileError = source.onTileError;
    source.onTileError = (e) => {
      log.tileErrors.push(describe(e));
      return onTileError.call(source, e);
    };
  }
}

let sources = null;
let deck = null;
let gl = null;
let viewportLoads = 0;
let loadsSeen = 0;
let selections = null;
const afterRender = [];
const nextRender = () => new Promise((resolve) => afterRender.push(resolve));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function layer({ selections, lo, background }) {
  return new MultiscaleImageLayer({
    id: "image",
    loader: sources,
    selections,
    // hi - lo = 255: the shader's round(255 * (v - lo) / (hi - lo)) is v - lo, clamped.
    contrastLimits: [[lo, lo + 255]],
    colors: [[255, 255, 255]],
    channelsVisible: [true],
    dtype: sources[0].dtype,
    excludeBackground: !background,
    onViewportLoad: () => viewportLoads++,
  });
}

const viewState = (x, y, width, height) => ({
  target: [x + width / 2, y + height / 2, 0],
  zoom: 0,
});

window.vivTest = {
  log,
  signalAborted: { ours: SIGNAL_ABORTED, viv: VIV_SIGNAL_ABORTED },

  /** WebGL2 in this browser, and its renderer. */
  webgl() {
    const g = document.createElement("canvas").getContext("webgl2");
    const info = g?.getExtension("WEBGL_debug_renderer_info");
    return g ? g.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : g.RENDERER) : null;
  },

  /** Opens the image with zarr-wasm/viv ("zarr-wasm") or Viv's own loader ("viv"). */
  async open(url, { reader = "zarr-wasm", tileSize } = {}) {
    const t0 = performance.now();
    const { data } =
      reader === "zarr-wasm"
        ? await openPixelSources(url, { tileSize })
        : await loadOmeZarr(url, { type: "multiscales" });
    instrument(data);
    sources = data;
    return {
      ms: performance.now() - t0,
      levels: data.map((s) => ({ shape: s.shape, tileSize: s.tileSize, labels: s.labels })),
    };
  },

  /**
   * Draws level 0 at one screen pixel per image pixel, image pixel (x, y) at the canvas' top left;
   * then, unless `wait` is false, waits until the tiles in view are loaded and drawn. Resolves to
   * the milliseconds that took.
   */
  async show({ x, y, width, height, selection, lo, background = false, wait = true }) {
    const t0 = performance.now();
    loadsSeen = viewportLoads;
    // The same selections array for the same selection: a new one makes Viv reload every tile.
    if (JSON.stringify(selections) !== JSON.stringify([selection])) selections = [selection];
    const props = {
      viewState: viewState(x, y, width, height),
      layers: [layer({ selections, lo, background })],
    };
    if (!deck) {
      const canvas = document.createElement("canvas");
      canvas.style.width = `${width}px`;
      canvas.style.height = `${height}px`;
      document.body.style.margin = "0";
      document.body.appendChild(canvas);
      deck = new Deck({
        canvas,
        width,
        height,
        useDevicePixels: 1,
        views: [new OrthographicView({ id: "ortho", controller: false })],
        ...props,
        onAfterRender: ({ gl: context }) => {
          gl = context;
          for (const resolve of afterRender.splice(0)) resolve();
        },
        onError: (e) => log.errors.push(`deck: ${describe(e)}`),
      });
    } else deck.setProps(props);
    if (!wait) return null;
    await window.vivTest.settle();
    return performance.now() - t0;
  },

  /** Pans to image pixel (x, y) without waiting. */
  pan(x, y, width, height) {
    loadsSeen = viewportLoads;
    deck.setProps({ viewState: viewState(x, y, width, height) });
  },

  /** Waits until the tiles in view since the last show or pan are loaded and drawn. */
  async settle() {
    const deadline = performance.now() + 30000;
    while (viewportLoads === loadsSeen) {
      if (performance.now() > deadline) throw new Error("the viewport did not load in 30 s");
      await sleep(5);
    }
    // onViewportLoad comes before the tiles' sublayers are drawn: two more frames.
    for (let i = 0; i < 2; i++) {
      const drawn = nextRender();
      deck.redraw("test");
      await drawn;
    }
  },

  /**
   * Reads the canvas back and compares every pixel with the sample's formula at level 0, channel c,
   * plane z, through the window [lo, lo + 255]: grey clamp(v - lo, 0, 255), opaque; pixels past the
   * image's edge must be untouched (transparent).
   */
  compare({ x, y, c, z, lo, side }) {
    const [w, h] = [gl.drawingBufferWidth, gl.drawingBufferHeight];
    const rgba = new Uint8Array(w * h * 4);
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, rgba);
    let image = 0;
    let outside = 0;
    const wrong = [];
    for (let py = 0; py < h; py++) {
      for (let px = 0; px < w; px++) {
        const at = ((h - 1 - py) * w + px) * 4; // readPixels' rows go bottom up
        const got = Array.from(rgba.subarray(at, at + 4));
        const [iy, ix] = [y + py, x + px];
        let want;
        if (iy < side && ix < side) {
          const grey = Math.min(255, Math.max(0, sampleValue(c, z, iy, ix, side) - lo));
          want = [grey, grey, grey, 255];
          image++;
        } else {
          want = [0, 0, 0, 0];
          outside++;
        }
        if (got.some((v, i) => v !== want[i]) && wrong.length < 10)
          wrong.push({ x: ix, y: iy, got, want });
      }
    }
    return { size: [w, h], image, outside, wrong };
  },

  /** Removes the layer (deck.gl aborts the tiles still loading) and waits `ms`. */
  async clear(ms) {
    deck.setProps({ layers: [] });
    await sleep(ms);
  },
};
window.vivReady = true;
