// The viewer: streams the tiles of an OME-Zarr image (or any 2-D+ Zarr array) at the resolution the
// zoom calls for, with zarr-wasm decoding in a pool of workers or, for comparison, zarrita.js.
// Pan by dragging, zoom with the wheel, a pinch or +/-. Tiles that leave the view before they
// arrive are aborted; recent tiles are kept. ?url= opens another image.
import { WorkerPool } from "zarr-wasm";
import { openImage } from "./ome.js";
import { zarrWasmReader, zarritaReader } from "./readers.js";
import { fitView, pickLevel, visibleTiles, zoomAbout } from "./view.js";
import { addChannel, lut } from "./colormap.js";
import { showVectors } from "./vectors.js";
import { runSave } from "./save.js";

const $ = (id) => document.getElementById(id);
const canvas = $("view");
const ctx2d = canvas.getContext("2d");

const MAX_IN_FLIGHT = 24; // tile reads at once
const MAX_VIEW_TILES = 400; // tiles a view may ask for at one level; beyond, a coarser level
const CACHE_BYTES = 256 << 20; // decoded tile planes kept, least recently drawn out first

// `?workers=N` sets the pool's size; 0 reads on the main thread (for comparison).
const askedWorkers = new URLSearchParams(location.search).get("workers");
const workerCount =
  askedWorkers !== null
    ? Number(askedWorkers)
    : Math.max(1, Math.min(4, (navigator.hardwareConcurrency ?? 2) - 1));
const pool = workerCount > 0 ? new WorkerPool(workerCount) : null;
const readers = { "zarr-wasm": zarrWasmReader(pool), "zarrita.js": zarritaReader() };

const state = {
  image: null,
  reader: readers["zarr-wasm"],
  arrays: new Map(), // reader name / level -> Promise of the reader's array
  view: null,
  sliders: {}, // axis index -> position
  colormap: "channel",
  style: 0, // bumped when contrast or colours change: composites are redrawn
  planes: new Map(), // tile plane key -> { data, shape } (least recently used first)
  planeBytes: 0,
  wanted: new Set(), // tile plane keys the current view needs: never evicted
  composites: new Map(), // tile key -> { canvas, style }
  inFlight: new Map(), // tile plane key -> { controller, wanted }
  queue: [],
  level: 0,
  load: null, // { started, tiles } of the current burst of loading
  lastLoad: null,
};

// ---------------------------------------------------------------------------------------------
// Tiles and their planes. A tile plane is one channel of one tile: the unit read from the store.

const planeKey = (reader, level, plane, t) =>
  `${reader}|${level}|${plane.join(",")}|${t.row},${t.col}`;
const tileKey = (level, t) => `${level}|${t.row},${t.col}`;

/**
 * The index along every axis before y and x for channel `c` at `level` (sliders elsewhere; a
 * level that shrinks z, say, takes the slider's position in proportion).
 */
function planeIndex(c, level) {
  const full = state.image.levels[level].full;
  const full0 = state.image.levels[0].full;
  return state.image.axes.map((a) =>
    a.channel ? c : Math.floor(((state.sliders[a.index] ?? 0) * full[a.index]) / full0[a.index]),
  );
}

function activeChannels() {
  return state.image.channels.map((ch, i) => ({ ...ch, index: i })).filter((ch) => ch.active);
}

function arrayFor(level) {
  const key = `${state.reader.name}|${level}`;
  if (!state.arrays.has(key)) {
    const opening = state.reader.openArray(state.image.url, state.image.levels[level].path);
    opening.catch(() => state.arrays.delete(key));
    state.arrays.set(key, opening);
  }
  return state.arrays.get(key);
}

/**
 * Everything the current view wants, in order: the coarsest level's tiles in view first (the
 * backdrop while finer tiles load), then the level's. At most MAX_VIEW_TILES of each, nearest
 * the centre: a single-level image zoomed far out shows its middle until zoomed in.
 */
function wantedTiles() {
  const { levels } = state.image;
  const coarsest = levels.length - 1;
  const out = [];
  const add = (level) =>
    visibleTiles(state.view, levels[level])
      .slice(0, MAX_VIEW_TILES)
      .forEach((t) => out.push([level, t]));
  if (state.level !== coarsest) add(coarsest);
  add(state.level);
  return out;
}

/** Starts the reads the view needs, and aborts those it no longer needs. */
function schedule() {
  const wanted = new Map();
  for (const [level, tile] of wantedTiles()) {
    for (const ch of activeChannels()) {
      const plane = planeIndex(ch.index, level);
      const key = planeKey(state.reader.name, level, plane, tile);
      if (!wanted.has(key)) wanted.set(key, { level, tile, plane });
    }
  }
  state.wanted = new Set(wanted.keys());
  for (const [key, read] of state.inFlight) {
    if (!wanted.has(key)) {
      read.controller.abort("the tile left the view");
      state.inFlight.delete(key);
      state.reader.stats.aborted++;
    }
  }
  state.queue = [...wanted].filter(([key]) => !state.planes.has(key) && !state.inFlight.has(key));
  if (activeChannels().length === 0) status("No channel is on: tick one.");
  pump();
}

function pump() {
  while (state.inFlight.size < MAX_IN_FLIGHT && state.queue.length) {
    const [key, job] = state.queue.shift();
    startRead(key, job);
  }
  if (state.inFlight.size === 0 && state.queue.length === 0 && state.load) {
    state.lastLoad = { tiles: state.load.tiles, ms: performance.now() - state.load.started };
    state.load = null;
    settle();
  }
}

async function startRead(key, { level, tile, plane }) {
  const controller = new AbortController();
  const reader = state.reader;
  state.inFlight.set(key, { controller });
  state.load ??= { started: performance.now(), tiles: 0 };
  const started = performance.now();
  try {
    const arr = await arrayFor(level);
    const selection = [
      ...plane,
      { start: tile.y0, stop: tile.y1 },
      { start: tile.x0, stop: tile.x1 },
    ];
    const { data } = await arr.read(selection, controller.signal);
    if (state.inFlight.get(key)?.controller !== controller) return; // aborted meanwhile
    state.planes.set(key, { data, shape: [tile.y1 - tile.y0, tile.x1 - tile.x0] });
    state.planeBytes += data.byteLength;
    evict();
    if (level === state.image.levels.length - 1) autoContrast(plane, data);
    reader.stats.tiles++;
    reader.stats.tileMs.push(performance.now() - started);
    if (reader.stats.tileMs.length > 200) reader.stats.tileMs.shift();
    if (state.load) state.load.tiles++;
    redraw();
  } catch (err) {
    if (!controller.signal.aborted) showError(err);
  } finally {
    if (state.inFlight.get(key)?.controller === controller) state.inFlight.delete(key);
    pump();
    showStats();
  }
}

/** Drops the least recently used planes past CACHE_BYTES, but none the current view needs. */
function evict() {
  for (const [key, plane] of state.planes) {
    if (state.planeBytes <= CACHE_BYTES) break;
    if (state.wanted.has(key)) continue;
    state.planes.delete(key);
    state.planeBytes -= plane.data.byteLength;
  }
}

/** A plane, marked as just used. */
function usePlane(key) {
  const plane = state.planes.get(key);
  if (plane) {
    state.planes.delete(key);
    state.planes.set(key, plane);
  }
  return plane;
}

/**
 * Contrast limits from the data where the image gives none: the first coarsest-level tile of each
 * channel sets them to its range.
 */
function autoContrast(plane, data) {
  const c = state.image.channelAxis ? plane[state.image.channelAxis.index] : 0;
  const ch = state.image.channels[c];
  if (!ch || ch.window) return;
  let lo = Infinity,
    hi = -Infinity;
  for (const v of data) {
    const n = Number(v);
    if (Number.isFinite(n)) (lo = Math.min(lo, n)), (hi = Math.max(hi, n));
  }
  if (!(hi > lo)) return;
  ch.window = [lo, hi];
  ch.limits = [lo, hi];
  ch.range = [Math.min(ch.range[0], lo), Math.max(ch.range[1], hi)];
  buildChannels();
  restyle();
}

// ---------------------------------------------------------------------------------------------
// Drawing: coarser levels first, so that finer tiles cover them as they arrive.

let frame = 0;
function redraw() {
  if (!frame) frame = requestAnimationFrame(draw);
}

/** The tile's picture in the current style, or null while any of its planes is missing. */
function composite(level, tile) {
  const key = tileKey(level, tile);
  const channels = activeChannels();
  const planes = channels.map((ch) =>
    usePlane(planeKey(state.reader.name, level, planeIndex(ch.index, level), tile)),
  );
  const id = `${state.style}|${state.reader.name}|${planes.map((_, i) => planeIndex(channels[i].index, level)).join(";")}`;
  const kept = state.composites.get(key);
  if (kept?.id === id) return kept.canvas;
  // Until every plane is in (another z, a channel turned on), the tile's last picture stays.
  if (planes.length === 0 || planes.some((p) => !p)) return kept?.canvas ?? null;
  const [h, w] = planes[0]?.shape ?? [tile.y1 - tile.y0, tile.x1 - tile.x0];
  const image = new ImageData(w, h);
  image.data.fill(0);
  channels.forEach((ch, i) => {
    const name = state.colormap === "channel" ? ch.color : state.colormap;
    addChannel(image.data, planes[i].data, ch.limits, lutFor(name));
  });
  for (let i = 3; i < image.data.length; i += 4) image.data[i] = 255;
  const c = kept?.canvas ?? document.createElement("canvas");
  c.width = w;
  c.height = h;
  c.getContext("2d").putImageData(image, 0, 0);
  state.composites.delete(key);
  state.composites.set(key, { id, canvas: c });
  while (state.composites.size > 600) state.composites.delete(state.composites.keys().next().value);
  return c;
}

const luts = new Map();
function lutFor(name) {
  if (!luts.has(name)) luts.set(name, lut(name));
  return luts.get(name);
}

function draw() {
  frame = 0;
  const { view, image } = state;
  ctx2d.imageSmoothingEnabled = false;
  ctx2d.fillStyle = "#111";
  ctx2d.fillRect(0, 0, canvas.width, canvas.height);
  let drawn = 0;
  for (let level = image.levels.length - 1; level >= state.level; level--) {
    const geometry = image.levels[level];
    const [dx, dy] = [geometry.downsample, geometry.downsampleY];
    for (const tile of visibleTiles(view, geometry).slice(0, MAX_VIEW_TILES)) {
      const picture = composite(level, tile);
      if (!picture) continue;
      // Whole canvas pixels at the tile's edges: no seams between tiles.
      const x0 = Math.round((tile.x0 * dx - view.x) * view.scale);
      const y0 = Math.round((tile.y0 * dy - view.y) * view.scale);
      const x1 = Math.round((tile.x1 * dx - view.x) * view.scale);
      const y1 = Math.round((tile.y1 * dy - view.y) * view.scale);
      ctx2d.drawImage(picture, x0, y0, x1 - x0, y1 - y0);
      if (level === state.level) drawn++;
    }
  }
  document.body.dataset.drawn = String(drawn);
  // A failed tile read shows in the status (and the console) until the view changes; the tiles
  // that did arrive go on being drawn.
  if (drawn > 0) document.body.dataset.state = "drawn";
  showStats();
}

// ---------------------------------------------------------------------------------------------
// The view: set, pan, zoom.

/** The zoom limits: a quarter of the whole image's fit (or of 1:1), to 32 screen pixels a pixel. */
function scaleLimits() {
  const fit = fitView(state.image.shape, canvas.width, canvas.height);
  return [Math.min(fit.scale, 1) / 4, Math.max(32, fit.scale)];
}

function setView(view) {
  const { image } = state;
  if ($("status").className === "error") status("Drag to pan, wheel or pinch to zoom.");
  const [minScale, maxScale] = scaleLimits();
  const scale = Math.min(maxScale, Math.max(minScale, view.scale));
  state.view = { ...view, scale, width: canvas.width, height: canvas.height };
  // The level the zoom calls for, or a coarser one where that would be too many tiles.
  let level = pickLevel(image.levels, scale);
  while (
    level < image.levels.length - 1 &&
    visibleTiles(state.view, image.levels[level]).length > MAX_VIEW_TILES
  )
    level++;
  state.level = level;
  schedule();
  redraw();
}

function resize() {
  const box = canvas.parentElement.getBoundingClientRect();
  canvas.width = Math.max(64, Math.floor(box.width));
  canvas.height = Math.max(64, Math.floor(box.height));
  if (state.view) setView(state.view);
}

function installControls() {
  const pointers = new Map();
  let pinch = null;
  canvas.addEventListener("pointerdown", (e) => {
    canvas.setPointerCapture(e.pointerId);
    pointers.set(e.pointerId, { x: e.offsetX, y: e.offsetY });
  });
  canvas.addEventListener("pointermove", (e) => {
    const last = pointers.get(e.pointerId);
    if (!last) return;
    const now = { x: e.offsetX, y: e.offsetY };
    if (pointers.size === 1) {
      const { view } = state;
      setView({
        ...view,
        x: view.x - (now.x - last.x) / view.scale,
        y: view.y - (now.y - last.y) / view.scale,
      });
    } else if (pointers.size === 2) {
      const [a, b] = [...pointers.entries()].map(([id, p]) => (id === e.pointerId ? now : p));
      const spread = Math.hypot(a.x - b.x, a.y - b.y);
      if (pinch) zoomBy(spread / pinch, (a.x + b.x) / 2, (a.y + b.y) / 2);
      pinch = spread;
    }
    pointers.set(e.pointerId, now);
  });
  const up = (e) => {
    pointers.delete(e.pointerId);
    pinch = null;
  };
  canvas.addEventListener("pointerup", up);
  canvas.addEventListener("pointercancel", up);
  canvas.addEventListener(
    "wheel",
    (e) => {
      e.preventDefault();
      zoomBy(Math.exp(-e.deltaY * 0.0015), e.offsetX, e.offsetY);
    },
    { passive: false },
  );
  canvas.addEventListener("dblclick", (e) => zoomBy(2, e.offsetX, e.offsetY));
  window.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement) return;
    if (e.key === "+" || e.key === "=") zoomBy(1.5, canvas.width / 2, canvas.height / 2);
    if (e.key === "-") zoomBy(1 / 1.5, canvas.width / 2, canvas.height / 2);
  });
  $("fit").addEventListener("click", () =>
    setView(fitView(state.image.shape, canvas.width, canvas.height)),
  );
  $("reader").addEventListener("change", (e) => {
    for (const read of state.inFlight.values()) {
      read.controller.abort("the reader changed");
      state.reader.stats.aborted++;
    }
    state.reader = readers[e.target.value];
    state.inFlight.clear();
    state.planes.clear(); // each reader fetches its own tiles: a fair comparison
    state.planeBytes = 0;
    state.composites.clear();
    state.load = state.lastLoad = null;
    schedule();
    redraw();
  });
  $("colormap").addEventListener("change", (e) => {
    state.colormap = e.target.value;
    restyle();
  });
  new ResizeObserver(resize).observe(canvas.parentElement);
}

function zoomBy(factor, px, py) {
  setView(zoomAbout(state.view, factor, px, py, ...scaleLimits()));
}

function restyle() {
  state.style++;
  redraw();
}

// ---------------------------------------------------------------------------------------------
// The side panel: channels, sliders, stats.

function buildPanel() {
  buildChannels();
  buildSliders();
}

function buildChannels() {
  const { image } = state;
  const channels = $("channels");
  channels.replaceChildren();
  image.channels.forEach((ch, i) => {
    const row = document.createElement("fieldset");
    row.innerHTML = `<legend><label><input type="checkbox" ${ch.active ? "checked" : ""}> <span class="swatch"></span> ${escapeHtml(ch.label)}</label></legend>
      <label>min <input type="range" class="lo"></label><label>max <input type="range" class="hi"></label><output></output>`;
    row.querySelector(".swatch").style.background = `#${ch.color}`;
    const [lo, hi, out] = [
      row.querySelector(".lo"),
      row.querySelector(".hi"),
      row.querySelector("output"),
    ];
    const range = ch.range;
    const step = integerType()
      ? Math.max(1, Math.round((range[1] - range[0]) / 1000))
      : (range[1] - range[0]) / 1000;
    for (const input of [lo, hi]) Object.assign(input, { min: range[0], max: range[1], step });
    lo.value = ch.limits[0];
    hi.value = ch.limits[1];
    out.textContent = `${ch.limits[0]} – ${ch.limits[1]}`;
    const update = () => {
      ch.limits = [Number(lo.value), Math.max(Number(lo.value) + step, Number(hi.value))];
      out.textContent = `${ch.limits[0]} – ${ch.limits[1]}`;
      restyle();
    };
    lo.addEventListener("input", update);
    hi.addEventListener("input", update);
    row.querySelector("input[type=checkbox]").addEventListener("change", (e) => {
      ch.active = e.target.checked;
      schedule();
      restyle();
    });
    row.dataset.channel = String(i);
    channels.append(row);
  });
}

function buildSliders() {
  const { image } = state;
  const sliders = $("sliders");
  sliders.replaceChildren();
  for (const axis of image.axes.filter((a) => !a.channel)) {
    state.sliders[axis.index] ??= 0;
    const label = document.createElement("label");
    label.innerHTML = `${escapeHtml(axis.name)} <input type="range" min="0" max="${axis.size - 1}" value="0" data-axis="${axis.index}"> <output>0</output>`;
    const input = label.querySelector("input");
    input.addEventListener("input", () => {
      state.sliders[axis.index] = Number(input.value);
      label.querySelector("output").textContent = input.value;
      schedule();
      redraw();
    });
    sliders.append(label);
  }
}

const integerType = () => /^u?int/.test(state.image.dtype);

/**
 * The contrast sliders' range before any data is seen: the channel window's bounds where the image
 * gives them, else the type's range (integers) or [0, 1], widened by the data later.
 */
function valueRange(window) {
  if (
    window &&
    Number.isFinite(window.min) &&
    Number.isFinite(window.max) &&
    window.max > window.min
  )
    return [window.min, window.max];
  const dtype = state.image.dtype;
  const bits = Number(/\d+/.exec(dtype)?.[0] ?? 16);
  if (dtype.startsWith("uint")) return [0, 2 ** bits - 1];
  if (dtype.startsWith("int")) return [-(2 ** (bits - 1)), 2 ** (bits - 1) - 1];
  return [0, 1];
}

const escapeHtml = (s) => String(s).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

function median(xs) {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

function showStats() {
  const s = state.reader.stats;
  const level = state.image.levels[state.level];
  const rows = [
    [
      "reader",
      state.reader.name +
        (state.reader.name === "zarr-wasm" && pool
          ? ` (${pool.size} worker${pool.size > 1 ? "s" : ""})`
          : " (main thread)"),
    ],
    [
      "level",
      `${state.level} of ${state.image.levels.length} (${level.shape.join(" × ")}, 1:${level.downsample})`,
    ],
    ["zoom", `${(state.view.scale * 100).toFixed(1)} %`],
    ["tile reads", `${s.tiles} (a channel of a tile each)`],
    ["in flight", String(state.inFlight.size)],
    ["aborted", String(s.aborted)],
    ["requests", String(s.requests)],
    ["received", `${(s.bytes / 1e6).toFixed(2)} MB`],
    [
      "read time (median)",
      Number.isNaN(median(s.tileMs))
        ? "–"
        : `${median(s.tileMs).toFixed(1)} ms from request to decoded data`,
    ],
    [
      "last load",
      state.lastLoad
        ? `${state.lastLoad.tiles} reads in ${state.lastLoad.ms.toFixed(0)} ms (${((1000 * state.lastLoad.tiles) / state.lastLoad.ms).toFixed(0)} reads/s)`
        : "–",
    ],
  ];
  $("stats").replaceChildren(
    ...rows.flatMap(([k, v]) => {
      const dt = document.createElement("dt");
      const dd = document.createElement("dd");
      dt.textContent = k;
      dd.textContent = v;
      dd.dataset.stat = k;
      return [dt, dd];
    }),
  );
}

function status(text) {
  $("status").textContent = text;
  $("status").className = "";
}

function showError(err) {
  $("status").textContent = `${err.name}: ${err.message}`;
  $("status").className = "error";
  document.body.dataset.state = "error";
  console.error(err);
}

// ---------------------------------------------------------------------------------------------
// Tests drive the viewer through window.viewer: set a view, wait until nothing is loading.

let idleWaiters = [];
function settle() {
  if (state.inFlight.size || state.queue.length) return;
  for (const resolve of idleWaiters) resolve();
  idleWaiters = [];
}

window.viewer = {
  state,
  /** Forgets every tile read so far (the next view reads all it shows). */
  clearCache() {
    state.planes.clear();
    state.composites.clear();
  },
  setView: (view) => setView({ ...state.view, ...view }),
  idle: () =>
    state.inFlight.size || state.queue.length
      ? new Promise((r) => idleWaiters.push(r))
      : Promise.resolve(),
  stats: () => ({
    ...state.reader.stats,
    tileMs: undefined,
    inFlight: state.inFlight.size,
    level: state.level,
  }),
};

// ---------------------------------------------------------------------------------------------
// Save as OME-Zarr (save.js): a progress bar and a cancel button while it runs. `?save=opfs`
// saves to the origin private file system without asking for a folder (the tests use it).

const saveUi = {
  begin(cancel) {
    $("save").disabled = true;
    $("saving").hidden = false;
    $("save-progress").value = 0;
    $("save-status").textContent = "Choosing where to save…";
    $("save-cancel").onclick = cancel;
    document.body.dataset.save = "saving";
  },
  progress(p) {
    const share = p.bytesTotal > 0 ? p.bytesDone / p.bytesTotal : 1;
    $("save-progress").value = share;
    const what = p.phase === "copy" ? "Writing" : "Checking";
    const array = `array ${Math.min(p.arraysDone + 1, p.arraysTotal)} of ${p.arraysTotal}${p.path ? ` ("${p.path}")` : ""}`;
    $("save-status").textContent =
      `${what}: ${(share * 100).toFixed(0)} % of ${(p.bytesTotal / (1 << 20)).toFixed(0)} MiB, ${array}`;
  },
  end(text, failed = false) {
    $("save").disabled = false;
    $("saving").hidden = true;
    $("save-status").textContent = text;
    $("save-status").className = failed ? "error" : "";
    document.body.dataset.save = failed ? "failed" : "done";
  },
};

function installSave(url) {
  const target = new URLSearchParams(location.search).get("save") ?? undefined;
  $("save").disabled = false;
  $("save").addEventListener("click", () => {
    window.viewer.lastSave = runSave({ url, image: state.image, target, ui: saveUi }).catch(
      (err) => ({ error: `${err.name}: ${err.message}` }),
    );
  });
}

async function main() {
  const params = new URLSearchParams(location.search);
  let url = params.get("url");
  if (!url) {
    // The large sample where `npm start` made it, else the small one that is committed.
    const large = new URL("data/large.ome.zarr", location.href).href;
    const found = await fetch(`${large}/zarr.json`, { method: "HEAD" }).then(
      (r) => r.ok,
      () => false,
    );
    url = found ? large : new URL("data/sample.ome.zarr", location.href).href;
  }
  url = new URL(url, location.href).href; // workers and zarrita.js resolve URLs elsewhere
  $("url").value = url;
  $("status").textContent = "Opening…";
  // A Zarr Vectors store is drawn as a projection of its vertices instead.
  const root = await fetch(`${url.replace(/\/$/, "")}/zarr.json`).then(
    (r) => (r.ok ? r.json() : null),
    () => null,
  );
  if (root?.attributes?.zarr_vectors) return mainVectors(url);
  const image = await openImage(url);
  state.image = image;
  for (const ch of image.channels) {
    ch.range = valueRange(ch.omeroWindow);
    ch.limits = ch.window ?? ch.range;
  }
  buildPanel();
  $("about").textContent =
    `${image.shape.join(" × ")} ${image.dtype}, ${image.levels.length} level${image.levels.length > 1 ? "s" : ""}, axes ${[...image.axes.map((a) => a.name), "y", "x"].join(" ")}`;
  installControls();
  resize();
  setView(fitView(image.shape, canvas.width, canvas.height));
  installSave(url);
  $("status").textContent = "Drag to pan, wheel or pinch to zoom.";
}

async function mainVectors(url) {
  const box = canvas.parentElement.getBoundingClientRect();
  canvas.width = Math.max(64, Math.floor(box.width));
  canvas.height = Math.max(64, Math.floor(box.height));
  const started = performance.now();
  const shown = await showVectors(url, canvas);
  const ms = performance.now() - started;
  $("about").textContent =
    `Zarr Vectors ${shown.zv.version}: ${shown.zv.geometryTypes.join(", ")}, ${shown.zv.ndim}-D, ${shown.zv.levels.length} level(s)`;
  $("stats").replaceChildren(
    ...[
      ["vertices", String(shown.vertices)],
      ["links or lines", String(shown.paths)],
      ["chunks read", String(shown.chunks)],
      ["open + read + draw", `${ms.toFixed(0)} ms`],
    ].flatMap(([k, v]) => {
      const dt = document.createElement("dt");
      const dd = document.createElement("dd");
      dt.textContent = k;
      dd.textContent = v;
      return [dt, dd];
    }),
  );
  for (const id of ["reader", "colormap", "fit"]) $(id).disabled = true;
  status(
    "The vertices projected on the first two axes, coloured by the third; links and lines in grey.",
  );
  window.viewer = { vectors: shown };
  document.body.dataset.state = "drawn";
}

main().catch(showError);
