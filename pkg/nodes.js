// What zarr-wasm/ome and zarr-wasm/viv tell opened nodes by, and how their messages name them.
// Internal: imports nothing, exported by no entry point.

/** Whether `node` is an opened array (a ZarrArray, or one of the same shape). */
export const isArrayNode = (node) => node?.kind === "array" && typeof node.get === "function";

/** Whether `node` is an opened group. */
export const isGroupNode = (node) => node?.kind === "group" && typeof node.open === "function";

/** A node as messages name it: its path in quotes, or "the root". */
export const nodeName = (node) => (node.path ? `"${node.path}"` : "the root");
