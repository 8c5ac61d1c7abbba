// Builds the demo viewer (www/) into www/dist/. zarr-wasm is imported by its package name, as a
// user's app would; webpack picks up the .wasm through `new URL(..., import.meta.url)`.
import { fileURLToPath } from "node:url";
import { dirname, resolve } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));

export default {
  mode: "production",
  entry: resolve(here, "www/main.js"),
  output: {
    path: resolve(here, "www/dist"),
    filename: "main.[contenthash:8].js",
    assetModuleFilename: "[name].[contenthash:8][ext]",
    clean: true,
  },
  performance: { hints: false },
  devtool: "source-map",
};
