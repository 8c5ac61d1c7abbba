// The command line's locations (pkg/cli.js, and its worker threads, pkg/convert-worker.js): a
// source or destination as the user typed it, as a store or URL open() and convert() take. Node
// only.
import { readdir, stat } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import { FileSystemStore } from "./fs.js";
import { FetchStore, ReferenceStore, ZipStore } from "./index.js";

/** A mistake on the command line: exit status 2, the message alone. */
export class UsageError extends Error {}

const isUrl = (text) => /^https?:\/\//i.test(text);

/** What a kind of file is read with, by its name's ending. */
function sourceKind(text) {
  const path = isUrl(text) ? new URL(text).pathname : text;
  if (/\.zip$/i.test(path)) return "zip";
  if (/\.(json|parq|parquet)$/i.test(path) && !/(^|\/)(zarr\.json|\.z\w+)$/.test(path))
    return "references";
  return "hierarchy";
}

/** The source as open() takes it. */
export async function sourceLocation(text) {
  const kind = sourceKind(text);
  if (isUrl(text)) {
    if (kind === "zip") return new ZipStore(text);
    if (kind === "references") return new ReferenceStore(text);
    return text.replace(/\/+$/, "");
  }
  const path = resolve(text);
  const info = await stat(path).catch(() => null);
  if (info === null) throw new UsageError(`the source ${text} does not exist`);
  if (kind === "zip") return new ZipStore(new FileSystemStore(dirname(path)), basename(path));
  if (kind === "references")
    throw new UsageError(
      `the source ${text}: a reference file is read by its URL (serve it over HTTP), so that the chunks it points to resolve`,
    );
  if (!info.isDirectory()) throw new UsageError(`the source ${text} is not a directory`);
  return new FileSystemStore(path);
}

/** The destination as a store that writes (a worker's, once it has been checked). */
export async function destinationLocation(text) {
  if (isUrl(text)) {
    const options = { writable: true };
    if (process.env.AWS_ACCESS_KEY_ID && process.env.AWS_SECRET_ACCESS_KEY)
      options.fetch = await signer();
    return new FetchStore(text.replace(/\/+$/, ""), options);
  }
  return new FileSystemStore(resolve(text));
}

/** The destination as convert() takes it, refused if it holds anything but a Zarr hierarchy. */
export async function destinationStore(text, overwrite) {
  if (isUrl(text)) return destinationLocation(text);
  const path = resolve(text);
  const info = await stat(path).catch(() => null);
  if (info === null) return new FileSystemStore(path);
  if (!info.isDirectory())
    throw new UsageError(`the destination ${text} exists and is not a directory`);
  const names = await readdir(path);
  if (names.length === 0) return new FileSystemStore(path);
  const zarr = names.some((n) => ["zarr.json", ".zgroup", ".zarray"].includes(n));
  if (!zarr)
    throw new UsageError(
      `the destination ${text} holds files that are not a Zarr hierarchy (${names.slice(0, 3).join(", ")}${names.length > 3 ? ", ..." : ""}): give an empty or new directory`,
    );
  if (!overwrite)
    throw new UsageError(
      `the destination ${text} already holds a Zarr hierarchy: pass --overwrite to replace it`,
    );
  return new FileSystemStore(path);
}

/** A `fetch` option that signs each request for S3 with the environment's keys (aws4fetch). */
async function signer() {
  let AwsClient;
  try {
    ({ AwsClient } = await import("aws4fetch"));
  } catch {
    throw new UsageError(
      "AWS_ACCESS_KEY_ID is set, and signing S3 requests needs aws4fetch: npm install aws4fetch",
    );
  }
  const aws = new AwsClient({
    accessKeyId: process.env.AWS_ACCESS_KEY_ID,
    secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY,
    sessionToken: process.env.AWS_SESSION_TOKEN,
    service: "s3",
    region: process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? "us-east-1",
  });
  return async (request) =>
    aws.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.method === "PUT" ? await request.arrayBuffer() : undefined,
      signal: request.signal,
    });
}
