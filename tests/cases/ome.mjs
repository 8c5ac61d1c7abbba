// zarr-wasm/ome: openImage on OME-Zarr images written by ome-zarr-py and ngff-zarr (NGFF 0.4 on
// Zarr v2, 0.5 on v3, with labels; scripts/make_ome_fixtures.py), compared with what ome-zarr-py's
// Reader read of them (tests/fixtures/ome.expected.json); and its errors.
import { deepEqual, equal, ok, rejects } from "../support/check.mjs";

const IMAGES = [
  "ome_zarr_py_04.zarr",
  "ome_zarr_py_05.zarr",
  "ngff_zarr_04.zarr",
  "ngff_zarr_05.zarr",
];
const imageUrl = (ctx, name) => `${ctx.base}/ome/${name}`;

async function expectedImages(ctx) {
  return (await (await fetch(`${ctx.base}/ome.expected.json`)).json()).images;
}

/** Scale and translation from a list of NGFF transformations, composed as NGFF applies them. */
function composed(transforms, rank) {
  let scale = Array(rank).fill(1);
  let translation = Array(rank).fill(0);
  for (const t of transforms) {
    if (t.type === "scale") {
      scale = scale.map((v, i) => v * t.scale[i]);
      translation = translation.map((v, i) => v * t.scale[i]);
    } else if (t.type === "translation") {
      translation = translation.map((v, i) => v + t.translation[i]);
    }
  }
  return { scale, translation };
}

/** ome-zarr-py's axes ({name, type, unit?}) as openImage gives them. */
const axesOf = (axes) =>
  axes.map((a) => ({ name: a.name, type: a.type ?? null, unit: a.unit ?? null }));

/** Each level read whole: its shape, dtype, sum and values at the places ome-zarr-py noted. */
async function checkLevels(levels, expected, what) {
  equal(levels.length, expected.length, `${what}: the number of levels`);
  for (const [k, level] of levels.entries()) {
    const want = expected[k];
    deepEqual(level.array.shape, want.shape, `${what}: level ${k}'s shape`);
    equal(level.array.dtype, want.dtype, `${what}: level ${k}'s dtype`);
    const { data, shape } = await level.array.get();
    let sum = 0;
    for (const v of data) sum += v;
    equal(sum, want.sum, `${what}: the sum of level ${k}'s values`);
    for (const { at, value } of want.values) {
      const index = at.reduce((acc, i, d) => acc * shape[d] + i, 0);
      equal(data[index], value, `${what}: level ${k} at ${at}`);
    }
  }
}

/** The transformations and axes openImage gives, against ome-zarr-py's. */
function checkPlacement(image, want, what) {
  deepEqual(image.axes, axesOf(want.axes), `${what}: the axes`);
  deepEqual(
    image.levels.map((l) => l.path),
    want.paths,
    `${what}: the levels' paths`,
  );
  const rank = want.axes.length;
  image.levels.forEach((level, k) => {
    const { scale, translation } = composed(want.coordinateTransformations[k], rank);
    deepEqual(level.scale, scale, `${what}: level ${k}'s scale`);
    deepEqual(level.translation, translation, `${what}: level ${k}'s translation`);
  });
}

/**
 * One of the fixtures with its root's attributes replaced (zarr.json answered here, everything
 * else fetched from the test server): layouts no writer made.
 */
function withAttributes(ctx, name, attributes) {
  const root = JSON.stringify({ zarr_format: 3, node_type: "group", attributes });
  return {
    url: `${name}, attributes rewritten`,
    get: async (key, options) => {
      if (key === "zarr.json") return new TextEncoder().encode(root);
      const response = await fetch(`${imageUrl(ctx, name)}/${key}`, { signal: options?.signal });
      if (response.status === 404) return undefined;
      if (!response.ok) throw new Error(`${key}: HTTP ${response.status}`);
      return new Uint8Array(await response.arrayBuffer());
    },
  };
}

const imageCases = IMAGES.map((name) => ({
  name: `zarr-wasm/ome: openImage reads ${name} (${name.startsWith("ome") ? "ome-zarr-py" : "ngff-zarr"}, NGFF ${name.includes("04") ? "0.4 on Zarr v2" : "0.5 on Zarr v3"}) as ome-zarr-py's Reader does: version, axes, levels' scales and translations, channels, every level's values, and each label image with its colours and properties`,
  async run(ctx) {
    const { openImage } = ctx.ome;
    const want = (await expectedImages(ctx))[name];
    const image = await openImage(imageUrl(ctx, name));
    equal(image.version, want.version, "the NGFF version");
    equal(image.group.zarrFormat, want.zarr_format, "the Zarr format");
    equal(image.name, want.name, "the image's name");
    checkPlacement(image, want, name);
    deepEqual(
      image.channels.map((c) => c.label),
      want.channel_names,
      "the channels' labels",
    );
    deepEqual(
      image.channels.map((c) => c.active),
      want.visible,
      "whether each channel is shown",
    );
    deepEqual(
      image.channels.map((c) => [c.window.start, c.window.end]),
      want.contrast_limits,
      "the channels' windows",
    );
    deepEqual(
      image.channels.map((c) =>
        [0, 2, 4].map((i) => Number.parseInt(c.color.slice(i, i + 2), 16) / 255),
      ),
      want.colormap.map(([, rgb]) => rgb),
      "the channels' colours",
    );
    equal(image.imageLabel, null, "an image is no label image");
    await checkLevels(image.levels, want.levels, name);

    deepEqual(
      image.labels.map((l) => l.name),
      Object.keys(want.labels),
      "the label images, in the labels group's order",
    );
    for (const label of image.labels) {
      const what = `${name}: label ${label.name}`;
      const expected = want.labels[label.name];
      checkPlacement(label, expected, what);
      deepEqual(
        Object.fromEntries(
          label.imageLabel.colors.map((c) => [String(c.labelValue), c.rgba.map((v) => v / 255)]),
        ),
        expected.colors,
        `${what}: the colours by label value`,
      );
      deepEqual(
        Object.fromEntries(
          label.imageLabel.properties.map(({ labelValue, ...rest }) => [String(labelValue), rest]),
        ),
        expected.properties,
        `${what}: the properties by label value`,
      );
      deepEqual(label.labels, [], `${what}: a label image has no labels of its own`);
      await checkLevels(label.levels, expected.levels, what);
    }
  },
}));

export const omeCases = [
  ...imageCases,
  {
    name: "zarr-wasm/ome: openImage from an opened Group and from a store; labels: false asks for no labels group; consolidated metadata (ngff-zarr's) answers for the labels group and the levels",
    async run(ctx) {
      const { openImage } = ctx.ome;
      const { open, FetchStore } = ctx.zarr;
      const url = imageUrl(ctx, "ome_zarr_py_04.zarr");
      const group = await open(url, { kind: "group" });
      const fromGroup = await openImage(group);
      equal(fromGroup.group, group, "the group given");
      equal(fromGroup.labels.length, 2, "its labels");
      const fromStore = await openImage(new FetchStore(url), { labels: false });
      deepEqual(fromStore.labels, [], "labels: false");

      await ctx.clearLog();
      await openImage(url, { labels: false });
      const asked = (await ctx.requests()).map((r) => r.path);
      ok(
        !asked.some((p) => p.includes("/labels")),
        `labels: false asks for nothing below labels/ (asked ${asked.join(", ")})`,
      );

      // ngff-zarr consolidates: the image, its levels and its labels come from .zmetadata.
      await ctx.clearLog();
      const consolidated = await openImage(imageUrl(ctx, "ngff_zarr_04.zarr"));
      equal(consolidated.labels[0].levels.length, 5, "the label's levels");
      const metadata = (await ctx.requests()).map((r) => r.path.split("ngff_zarr_04.zarr")[1]);
      deepEqual(
        metadata.filter((p) => p.includes("scale") || p.includes("labels")),
        [],
        `consolidated: the root's documents only (asked ${metadata.join(", ")})`,
      );
    },
  },
  {
    name: "zarr-wasm/ome: a group that is no image says what it lacks and what it is (plate, well, bioformats2raw layout, labels group); an unknown NGFF version is an UnsupportedError naming it; an array, bad axes, bad transformations and bad options are refused",
    async run(ctx) {
      const { openImage, NGFF_VERSIONS } = ctx.ome;
      const name = "ome_zarr_py_05.zarr";
      const attrs = (await (await fetch(`${imageUrl(ctx, name)}/zarr.json`)).json()).attributes;
      const { ome } = attrs;
      const rewritten = (attributes, options) =>
        openImage(withAttributes(ctx, name, attributes), options);

      await rejects(
        openImage(`${ctx.base}/v3.zarr`),
        "MetadataError",
        [/the group at the root is no OME-Zarr image/, /no multiscales/],
        "a plain group",
      );
      await rejects(
        openImage(`${imageUrl(ctx, name)}/labels`),
        "MetadataError",
        [/is no OME-Zarr image: it is a labels group/, /"cells", "nuclei"/],
        "a labels group",
      );
      await rejects(
        rewritten({ ome: { version: "0.5", plate: { wells: [{ path: "A/1" }] } } }),
        "MetadataError",
        [/plate/, /"A\/1\/0"/],
        "a plate",
      );
      await rejects(
        rewritten({ ome: { version: "0.5", well: { images: [{ path: "0" }] } } }),
        "MetadataError",
        [/a well of a plate/, /"0"/],
        "a well",
      );
      await rejects(
        rewritten({ "bioformats2raw.layout": 3 }),
        "MetadataError",
        [/bioformats2raw layout/, /open "0"/],
        "a bioformats2raw layout",
      );
      await rejects(
        rewritten({ ome: { ...ome, version: "0.6" } }),
        "UnsupportedError",
        [/OME-NGFF version "0.6"/, /reads 0\.1, 0\.2, 0\.3, 0\.4, 0\.5/],
        "NGFF 0.6",
      );
      await rejects(
        rewritten({ multiscales: [{ ...ome.multiscales[0], version: "1.0" }] }),
        "UnsupportedError",
        [/version "1.0"/],
        "an unknown 0.4-style version",
      );
      deepEqual(NGFF_VERSIONS, ["0.1", "0.2", "0.3", "0.4", "0.5"], "the versions read");
      await rejects(
        openImage(`${imageUrl(ctx, name)}/s0`),
        "NotFoundError",
        [/s0/],
        "an array's location (open with kind group)",
      );
      const array = await ctx.zarr.open(`${imageUrl(ctx, name)}/s0`, { kind: "array" });
      await rejects(
        openImage(array),
        "MetadataError",
        [/is no OME-Zarr image/, /array/],
        "an array",
      );

      const [multiscale] = ome.multiscales;
      await rejects(
        rewritten({
          ome: { ...ome, multiscales: [{ ...multiscale, axes: multiscale.axes.slice(1) }] },
        }),
        "MetadataError",
        [/has 3 axes \(z, y, x\), but its level 0 array has 4 dimensions/],
        "axes fewer than the dimensions",
      );
      const badScale = structuredClone(multiscale);
      badScale.datasets[1].coordinateTransformations[0].scale = [1, 2];
      await rejects(
        rewritten({ ome: { ...ome, multiscales: [badScale] } }),
        "MetadataError",
        [/dataset 1 \("s1"\): coordinateTransformations\[0\]'s scale is not 4 finite numbers/],
        "a scale of the wrong length",
      );
      const fromFile = structuredClone(multiscale);
      fromFile.datasets[0].coordinateTransformations = [{ type: "scale", path: "scales.bin" }];
      await rejects(
        rewritten({ ome: { ...ome, multiscales: [fromFile] } }),
        "UnsupportedError",
        [/scales\.bin/],
        "a scale in a binary file",
      );
      await rejects(
        rewritten({
          ome: { ...ome, multiscales: [{ ...multiscale, datasets: [{ path: "s0" }, {}] }] },
        }),
        "MetadataError",
        [/dataset 1 has no path/],
        "a dataset without a path",
      );
      await rejects(
        openImage(imageUrl(ctx, name), { kind: "array" }),
        "TypeError",
        [/kind option can only be "group"/],
        "kind array",
      );
      await rejects(
        openImage(imageUrl(ctx, name), { multiscale: 1 }),
        "MetadataError",
        [/has 1 multiscales, none numbered 1/],
        "a multiscale that is not there",
      );
    },
  },
  {
    name: "zarr-wasm/ome: older layouts: NGFF 0.3's axes as names get their types, levels without transformations are scaled by their shapes, a multiscale-wide scale multiplies every level's, and omero channels without windows or colours get nulls and defaults",
    async run(ctx) {
      const { openImage } = ctx.ome;
      const name = "ome_zarr_py_05.zarr";
      const [multiscale] = (await (await fetch(`${imageUrl(ctx, name)}/zarr.json`)).json())
        .attributes.ome.multiscales;
      const paths = multiscale.datasets.map(({ path }) => ({ path }));
      const v03 = await openImage(
        withAttributes(ctx, name, {
          multiscales: [{ version: "0.3", axes: ["c", "z", "y", "x"], datasets: paths }],
          omero: { channels: [{}, { label: "second", color: "ff00ff" }] },
        }),
        { labels: false },
      );
      equal(v03.version, "0.3", "0.3");
      deepEqual(
        v03.axes,
        [
          { name: "c", type: "channel", unit: null },
          { name: "z", type: "space", unit: null },
          { name: "y", type: "space", unit: null },
          { name: "x", type: "space", unit: null },
        ],
        "axes as names, typed by name",
      );
      deepEqual(
        v03.levels.map((l) => l.scale),
        [
          [1, 1, 1, 1],
          [1, 1, 2, 2],
          [1, 1, 4, 4],
        ],
        "scales from the shapes",
      );
      deepEqual(
        v03.channels,
        [
          {
            label: "channel_0",
            color: null,
            window: null,
            active: true,
            inverted: false,
            family: null,
            coefficient: null,
          },
          {
            label: "second",
            color: "FF00FF",
            window: null,
            active: true,
            inverted: false,
            family: null,
            coefficient: null,
          },
        ],
        "channels with defaults",
      );

      const bare = await openImage(
        withAttributes(ctx, name, { multiscales: [{ datasets: paths }] }),
        {
          labels: false,
        },
      );
      equal(bare.version, null, "no version");
      deepEqual(
        bare.axes.map((a) => a.name),
        ["c", "z", "y", "x"],
        "no axes: the arrays' dimension names",
      );

      const wide = await openImage(
        withAttributes(ctx, name, {
          ome: {
            version: "0.5",
            multiscales: [
              {
                ...multiscale,
                coordinateTransformations: [
                  { type: "scale", scale: [1, 2, 10, 10] },
                  { type: "translation", translation: [0, 0, 100, -100] },
                ],
              },
            ],
          },
        }),
        { labels: false },
      );
      deepEqual(wide.levels[1].scale, [1, 1, 5, 5], "the level's scale times the multiscale's");
      deepEqual(
        wide.levels[1].translation,
        [0, 0, 101.25, -98.75],
        "translations scaled, then added",
      );
    },
  },
];
