// A static HTTP server for tests, the demo and the benchmark: serves directories on 127.0.0.1 with
// Range support (single ranges, suffix ranges, 206/416), logs every request so tests can count them,
// and can be told to fail on purpose.
//
//   GET /__log               the requests logged so far, as JSON (not itself logged); an entry
//                            has `aborted: true` if the client closed it before the answer
//   POST /__log/clear        empties the log
//   /__status/<code>/<path>  answers <code> instead of serving <path>
//   GET /__active            how many requests are in progress
//   GET /__active/list       those requests' log entries, each with its age in ms
//   GET /__preflights        how many CORS preflights (OPTIONS) came since the log was cleared
//   POST /__override?path=P  serves the request's body as the file at path P from then on (P
//                            must exist; below any quirk prefix), as a store written meanwhile
//                            (a commit, a regenerated file); /__override/clear ends them all
//   /__slow/<ms>/<path>      answers <path> after a delay (a distant server)
//   /__parts/<n>/<path>      sends the body in writes of n bytes, each flushed before the next
//   /__nosuffix/, /__norange/, /__nolength/, /__nohead/, /__nolist/, /__corsnorange/, /__nocors/, /__flaky/<n>/,
//   /__wrongrange/<n>/ before a path: servers
//                            with quirks (see below); the log records an X-Token request header as
//                            `token`
//   GET <dir>/               a directory without index.html: an index page of its entries, as
//                            Python's http.server writes it
//   Hostile servers, before a path: /__stall/ never answers; /__endless/ answers 200 (206 with
//   the right Content-Range, for a range) and sends zeros for ever, without a length;
//   /__huge/ claims a Content-Length of 1 TiB; /__trickle/<ms>/ sends the body 1 KiB every <ms>;
//   /__redirect/ answers 302 to the same path without the prefix; /__fuzz/<seed>/ answers each
//   request with a random quirk (3 in 10): an error status, a stall, a reset connection, a body
//   cut short, the whole value for a range, a shifted or short Content-Range, an endless body,
//   a lying length, a slow or trickling answer (the quirk is logged as `quirk`)
//   /__s3/<bucket>/, /__gcs/<bucket>/ and /__gcs/storage/v1/b/<bucket>/o: the "/" mount as an S3
//   or Google Cloud Storage bucket, with their listings and no directories (see bucketAnswer)
import { createServer } from "node:http";
import { createSecureServer } from "node:http2";
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname, extname, join, normalize, resolve, sep } from "node:path";
import { gzipSync } from "node:zlib";
import { mulberry32 } from "./random.mjs";

const COMPRESSED = new Set([".js", ".mjs", ".wasm", ".json", ".html"]);
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".css": "text/css",
  ".png": "image/png",
};

/** Parses a single-range `Range` header against a body of `size` bytes. */
export function parseRange(header, size) {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return null;
  let start, end;
  if (m[1] === "") {
    const n = Number(m[2]);
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || end < start) return "unsatisfiable";
  return { start, end };
}

/** A directory's index page, as Python's http.server writes one. */
function indexPage(path, entries) {
  const items = entries
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
    .sort()
    .map(
      (name) =>
        `<li><a href="${encodeURIComponent(name.replace(/\/$/, "")) + (name.endsWith("/") ? "/" : "")}">${name}</a></li>`,
    );
  return `<!DOCTYPE HTML>\n<html lang="en">\n<head><meta charset="utf-8"><title>Directory listing for ${path}</title></head>\n<body>\n<h1>Directory listing for ${path}</h1>\n<hr>\n<ul>\n${items.join("\n")}\n</ul>\n<hr>\n</body>\n</html>\n`;
}

/** Entries a page of a bucket listing holds: few, so that a listing takes several pages. */
const BUCKET_PAGE = 8;

/**
 * How a bucket answers `rest` (after /__s3 or /__gcs), its objects being the files of the "/"
 * mount: `{ status, body, type }`, or `{ path }` of an object to serve as the mount serves it.
 *   /__s3/<bucket>/?list-type=2&prefix=P&delimiter=/[&continuation-token=T]
 *       S3's ListObjectsV2: the files (Contents) and directories (CommonPrefixes) directly below
 *       the key prefix P, BUCKET_PAGE a page
 *   /__gcs/storage/v1/b/<bucket>/o?prefix=P&delimiter=/[&pageToken=T]
 *       GCS's JSON API objects.list: `items` and `prefixes`, BUCKET_PAGE a page
 *   /__s3/<bucket>/<key>, /__gcs/<bucket>/<key>
 *       the object; a "directory" (a key ending in "/") or a key that is not there is 403 on S3
 *       (as S3 answers readers that may not list) and 404 on GCS
 */
async function bucketAnswer(kind, rest, params, roots) {
  const root = roots.find(([prefix]) => prefix === "/")?.[1];
  const listing =
    (kind === "s3" && params.get("list-type") === "2" && /^\/[^/]+\/?$/.test(rest)) ||
    (kind === "gcs" && /^\/storage\/v1\/b\/[^/]+\/o$/.test(rest));
  // S3 answers 403 where GCS answers 404: for a "directory", and for any key that is not there
  // (what S3 tells a reader that may not list the bucket).
  const missing = { status: kind === "s3" ? 403 : 404, body: "no such object" };
  if (!listing) {
    const key = /^\/[^/]+(\/.*)?$/.exec(rest)?.[1] ?? "/";
    if (key.endsWith("/") || !root) return missing;
    const file = normalize(join(root, key));
    const found = file.startsWith(root + sep) && (await stat(file).catch(() => null))?.isFile();
    return found ? { path: key } : missing;
  }
  if (!root) return missing;
  const prefix = params.get("prefix") ?? "";
  const token = params.get(kind === "s3" ? "continuation-token" : "pageToken");
  const after = token ? Buffer.from(token, "base64url").toString() : "";
  let keys = [];
  const dir = normalize(join(root, prefix));
  if (
    root &&
    (prefix === "" || prefix.endsWith("/")) &&
    (dir === root || dir.startsWith(root + sep))
  ) {
    try {
      const entries = await readdir(dir, { withFileTypes: true });
      keys = entries.map((e) => `${prefix}${e.name}${e.isDirectory() ? "/" : ""}`).sort();
    } catch {
      // No such prefix: an empty listing.
    }
  }
  const page = keys.filter((k) => k > after).slice(0, BUCKET_PAGE);
  const more = keys.filter((k) => k > after).length > page.length;
  const next = more ? Buffer.from(page.at(-1)).toString("base64url") : null;
  const dirs = page.filter((k) => k.endsWith("/"));
  const files = page.filter((k) => !k.endsWith("/"));
  if (kind === "gcs") {
    const body = {
      kind: "storage#objects",
      prefixes: dirs,
      items: files.map((name) => ({ name })),
    };
    if (next) body.nextPageToken = next;
    return { status: 200, body: JSON.stringify(body), type: "application/json" };
  }
  const xml = (t) => t.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const body = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">',
    `<Name>bucket</Name><Prefix>${xml(prefix)}</Prefix><KeyCount>${page.length}</KeyCount>`,
    `<MaxKeys>${BUCKET_PAGE}</MaxKeys><Delimiter>/</Delimiter><IsTruncated>${more}</IsTruncated>`,
    next ? `<NextContinuationToken>${next}</NextContinuationToken>` : "",
    ...files.map((k) => `<Contents><Key>${xml(k)}</Key><Size>0</Size></Contents>`),
    ...dirs.map((k) => `<CommonPrefixes><Prefix>${xml(k)}</Prefix></CommonPrefixes>`),
    "</ListBucketResult>",
  ].join("");
  return { status: 200, body, type: "application/xml" };
}

/**
 * Starts a server. `mounts` maps URL prefixes to directories, e.g. { "/": "www/dist", "/data/": "www/data" }.
 * Resolves to { url, log, clearLog(), close() }.
 */
export async function startServer({
  mounts,
  port = 0,
  host = "127.0.0.1",
  quiet = true,
  tls = null,
  // Code and metadata (.js, .mjs, .wasm, .json, .html) gzipped at level 9 for clients that accept
  // it, as a CDN serves them (the benchmark's cold pages); data is sent as it is.
  compress = false,
  // A directory that `PUT /__upload/<path>` writes files into (a page copying out what it wrote
  // to its origin's private file system, for zarr-python to read).
  uploads = null,
}) {
  const roots = Object.entries(mounts)
    .map(([prefix, dir]) => [prefix.endsWith("/") ? prefix : `${prefix}/`, resolve(dir)])
    .sort((a, b) => b[0].length - a[0].length);
  const log = [];
  const flakyCounts = new Map();
  const wrongRangeCounts = new Map();
  const overrides = new Map(); // path -> the bytes served for it instead of its file
  // The fuzzing server's quirks: 3 requests in 10 get one, chosen by a generator per seed.
  const fuzzers = new Map();
  const QUIRKS = [
    500,
    503,
    429,
    408,
    400,
    403,
    418,
    "stall",
    "reset",
    "cut",
    "whole",
    "shift",
    "short",
    "endless",
    "huge",
    "slow",
    "trickle",
  ];
  const pickQuirk = (seed) => {
    if (!fuzzers.has(seed)) fuzzers.set(seed, mulberry32(seed));
    const next = fuzzers.get(seed);
    return next() < 0.3 ? QUIRKS[Math.floor(next() * QUIRKS.length)] : null;
  };
  // Half the body, its full length announced, then the connection dropped.
  const cut = (res, body) => {
    res.statusCode = res.getHeader("Content-Range") ? 206 : 200;
    res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.destroy());
  };
  let active = 0;
  let preflights = 0;
  const gzipped = new Map();
  // The log entries of the requests in progress, so that a test finding one left open can say
  // which it is (its path, range, quirk and how long ago it arrived).
  const inProgress = new Set();

  const handle = async (req, res) => {
    const url = new URL(req.url, "http://x");
    res.setHeader("Access-Control-Allow-Origin", "*");
    // /__corsnorange/: a CORS server whose preflight answer does not allow the Range header (as
    // many CDN and bucket CORS rules are written): a browser refuses a ranged request to it from
    // another origin before it is sent.
    const allowRange = !url.pathname.startsWith("/__corsnorange/");
    res.setHeader("Access-Control-Allow-Headers", allowRange ? "Range, X-Token" : "X-Token");
    res.setHeader("Access-Control-Expose-Headers", "Content-Range, Content-Length, Accept-Ranges");
    if (url.pathname === "/__log") {
      res.setHeader("Content-Type", "application/json");
      return res.end(JSON.stringify(log));
    }
    if (url.pathname === "/__active") return res.end(String(active));
    if (url.pathname === "/__active/list") {
      res.setHeader("Content-Type", "application/json");
      const now = Date.now();
      return res.end(JSON.stringify([...inProgress].map((e) => ({ ...e, age: now - e.at }))));
    }
    if (url.pathname === "/__preflights") return res.end(String(preflights));
    if (url.pathname === "/__override/clear") {
      overrides.clear();
      return res.end("ok");
    }
    if (url.pathname === "/__override" && req.method === "POST") {
      const parts = [];
      for await (const part of req) parts.push(part);
      overrides.set(url.searchParams.get("path"), Buffer.concat(parts));
      return res.end("ok");
    }
    if (uploads && url.pathname.startsWith("/__upload/") && req.method === "PUT") {
      const file = resolve(uploads, decodeURIComponent(url.pathname.slice("/__upload/".length)));
      if (!file.startsWith(`${resolve(uploads)}/`)) {
        res.statusCode = 403;
        return res.end("outside the uploads");
      }
      const parts = [];
      for await (const part of req) parts.push(part);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, Buffer.concat(parts));
      return res.end("ok");
    }
    if (url.pathname === "/__log/clear") {
      log.length = 0;
      preflights = 0;
      flakyCounts.clear();
      wrongRangeCounts.clear();
      return res.end("ok");
    }
    if (req.method === "OPTIONS") {
      preflights++;
      res.statusCode = 204;
      return res.end();
    }
    // `active`: requests in progress when this one arrived, itself included.
    const entry = {
      method: req.method,
      path: url.pathname,
      range: req.headers.range ?? null,
      status: 0,
      active: ++active,
    };
    Object.defineProperty(entry, "at", { value: Date.now() });
    inProgress.add(entry);
    let settled = false;
    const socket = req.socket;
    const settle = () => {
      if (settled) return;
      settled = true;
      socket.off("close", settle);
      active--;
      inProgress.delete(entry);
      // The client went away before the answer was sent: an aborted request.
      if (!res.writableFinished) entry.aborted = true;
    };
    res.on("close", settle);
    // A request that arrives on a connection whose previous answer is still being written waits
    // behind it, and Node never says "close" for such an answer if the connection is then closed:
    // the connection's end settles it too.
    socket.once("close", settle);
    log.push(entry);
    let trickleMs = 0;
    let partBytes = 0;
    const reply = (status, body = "") => {
      entry.status = status;
      entry.bytes = req.method === "HEAD" ? 0 : body.length;
      res.statusCode = status;
      if (partBytes && req.method !== "HEAD") {
        // The body in writes of `partBytes`, each sent on its own before the next: the client
        // sees parts of that size (or what its network stack gathers of them).
        body = Buffer.from(body);
        res.flushHeaders();
        let at = 0;
        // The last part ends the answer in the same write: the client, which has the whole body,
        // may send its next request on the connection at once.
        const next = () => {
          if (res.destroyed) return;
          const part = body.subarray(at, at + partBytes);
          at += partBytes;
          if (at >= body.length) return res.end(part);
          res.write(part, () => setImmediate(next));
        };
        return next();
      }
      if (!trickleMs || req.method === "HEAD")
        return res.end(req.method === "HEAD" ? undefined : body);
      // 1 KiB every `trickleMs`: slow, but never idle for long.
      body = Buffer.from(body);
      let at = 0;
      const next = () => {
        if (res.destroyed) return;
        const part = body.subarray(at, at + 1024);
        at += 1024;
        if (at >= body.length) return res.end(part);
        res.write(part);
        setTimeout(next, trickleMs);
      };
      next();
    };
    if (!quiet)
      res.on("finish", () =>
        console.log(
          `${entry.status} ${req.method} ${url.pathname}${entry.range ? ` [${entry.range}]` : ""}`,
        ),
      );

    let path = decodeURIComponent(url.pathname);
    const forced = /^\/__status\/(\d{3})(\/.*)$/.exec(path);
    if (forced) return reply(Number(forced[1]), `forced status ${forced[1]}`);
    // Servers that behave differently, chosen by a path prefix (then stripped):
    //   /__nosuffix/  refuses suffix ranges (416) but honours others;
    //   /__norange/   ignores Range and always answers 200 with the whole body;
    //   /__nolength/  as /__nosuffix/, and answers HEAD without Content-Length;
    //   /__nohead/    answers HEAD 405, without CORS headers (a bucket whose CORS rule allows GET
    //                 alone: a browser refuses the answer from another origin);
    //   /__nolist/    has no directory index pages (404);
    //   /__flaky/N/   answers 503 to the first N requests for each path;
    //   /__corsnorange/ serves as usual, but its CORS preflights do not allow Range (see above);
    //   /__nocors/    serves as usual, without CORS headers (another origin's page gets nothing);
    //   /__wrongrange/N/ answers the first N range requests for each path with another range of
    //                 the same length, 16 bytes earlier (later where the range starts before byte
    //                 16), and a Content-Range that says so: a cache that answers for another range.
    // Object-store buckets over the "/" mount, which have no directories: see `bucketAnswer`.
    const bucket = /^\/__(s3|gcs)(\/.*)$/.exec(path);
    if (bucket) {
      const answer = await bucketAnswer(bucket[1], bucket[2], url.searchParams, roots);
      if (answer.type) res.setHeader("Content-Type", answer.type);
      if (answer.status) return reply(answer.status, answer.body);
      path = answer.path;
    }
    const fuzz = /^\/__fuzz\/(\d+)(\/.*)$/.exec(path);
    let quirk = null;
    if (fuzz) {
      path = fuzz[2];
      quirk = pickQuirk(Number(fuzz[1]));
      if (quirk) entry.quirk = quirk;
      if (typeof quirk === "number") return reply(quirk, "fuzzed status");
      if (quirk === "stall") path = `/__stall${path}`;
      if (quirk === "reset") return req.socket.destroy();
      if (quirk === "endless" || quirk === "huge") path = `/__${quirk}${path}`;
      if (quirk === "slow") await new Promise((ok) => setTimeout(ok, 30));
      if (quirk === "trickle") trickleMs = 5;
    }
    if (path.startsWith("/__stall/")) {
      entry.status = "stalled";
      return; // the connection stays open until the client gives up (or the server closes)
    }
    if (path.startsWith("/__redirect/")) {
      res.setHeader("Location", path.slice("/__redirect".length));
      return reply(302);
    }
    const hostile = /^\/__(endless|huge|trickle\/(\d+))(\/.*)$/.exec(path);
    if (hostile && hostile[1] !== "huge" && !hostile[2] && req.method === "HEAD") {
      // A HEAD's answer is whole with its headers: no length, as a stream of zeros has none.
      entry.status = 200;
      res.setHeader("Transfer-Encoding", "chunked");
      return res.end();
    }
    if (hostile?.[1] === "huge" && req.method === "HEAD") {
      entry.status = 200;
      res.setHeader("Content-Length", String(2 ** 40));
      return res.end();
    }
    if (hostile && hostile[1] !== "huge" && !hostile[2]) {
      // Zeros for ever, as fast as the client takes them, until it goes away.
      const range = req.headers.range ? /bytes=(\d*)-(\d*)/.exec(req.headers.range) : null;
      entry.status = range ? 206 : 200;
      res.statusCode = entry.status;
      if (range)
        res.setHeader("Content-Range", `bytes ${range[1] || 0}-${range[2] || 1e12 - 1}/${1e12}`);
      const zeros = Buffer.alloc(64 << 10);
      entry.bytes = 0;
      // Every write is counted, the one the socket's buffer is full after too.
      const pump = () => {
        while (!res.destroyed) {
          entry.bytes += zeros.length;
          if (!res.write(zeros)) break;
        }
        if (!res.destroyed) res.once("drain", pump);
      };
      return pump();
    }
    if (hostile?.[1] === "huge") {
      entry.status = 200;
      res.statusCode = 200;
      res.setHeader("Content-Length", String(2 ** 40));
      res.write(Buffer.alloc(1024));
      return; // never finishes: the client must refuse it from its length
    }
    const slow = /^\/__slow\/(\d+)(\/.*)$/.exec(path);
    if (slow) {
      path = slow[2];
      await new Promise((ok) => setTimeout(ok, Number(slow[1])));
    }
    if (hostile?.[2]) {
      trickleMs = Number(hostile[2]);
      path = hostile[3];
    }
    const parts = /^\/__parts\/(\d+)(\/.*)$/.exec(path);
    if (parts) {
      partBytes = Math.max(1, Number(parts[1]));
      path = parts[2];
    }
    let wrongRange = false;
    const wrong = /^\/__wrongrange\/(\d+)(\/.*)$/.exec(path);
    if (wrong) {
      path = wrong[2];
      if (req.headers.range && req.method === "GET") {
        const seen = (wrongRangeCounts.get(path) ?? 0) + 1;
        wrongRangeCounts.set(path, seen);
        wrongRange = seen <= Number(wrong[1]);
      }
    }
    const mode =
      /^\/__(nosuffix|norange|nolength|nohead|nolist|corsnorange|nocors|flaky\/(\d+))(\/.*)$/.exec(
        path,
      );
    if (mode) {
      path = mode[3];
      if (mode[2] !== undefined) {
        const seen = (flakyCounts.get(path) ?? 0) + 1;
        flakyCounts.set(path, seen);
        if (seen <= Number(mode[2])) return reply(503, "try again");
      }
    }
    const behaviour =
      quirk === "whole" ? "norange" : mode && mode[2] === undefined ? mode[1] : "normal";
    if (req.headers["x-token"]) entry.token = req.headers["x-token"];
    // A server without CORS rules: a browser refuses its answers to a page of another origin.
    if (behaviour === "nocors") res.removeHeader("Access-Control-Allow-Origin");
    if (req.method === "HEAD" && behaviour === "nohead") {
      res.removeHeader("Access-Control-Allow-Origin");
      return reply(405);
    }
    const mount = roots.find(([prefix]) => path.startsWith(prefix) || `${path}/` === prefix);
    if (!mount || (req.method !== "GET" && req.method !== "HEAD")) return reply(mount ? 405 : 404);
    const [prefix, dir] = mount;
    let file = normalize(join(dir, path.slice(prefix.length)));
    if (file !== dir && !file.startsWith(dir + sep)) return reply(403);
    try {
      let info = await stat(file);
      if (info.isDirectory()) {
        const names = await readdir(file, { withFileTypes: true });
        if (
          path.endsWith("/") &&
          behaviour !== "nolist" &&
          !names.some((n) => n.name === "index.html")
        ) {
          res.setHeader("Content-Type", "text/html; charset=utf-8");
          return reply(200, Buffer.from(indexPage(path, names)));
        }
        file = join(file, "index.html");
        info = await stat(file);
      }
      const body = overrides.get(path) ?? (await readFile(file));
      res.setHeader("Content-Type", TYPES[extname(file)] ?? "application/octet-stream");
      res.setHeader("Accept-Ranges", "bytes");
      res.setHeader("Cache-Control", "no-cache");
      const asked = behaviour === "norange" ? null : req.headers.range;
      if (asked?.startsWith("bytes=-") && (behaviour === "nosuffix" || behaviour === "nolength"))
        return reply(416);
      const range = asked ? parseRange(asked, body.length) : null;
      if (range === "unsatisfiable") {
        res.setHeader("Content-Range", `bytes */${body.length}`);
        return reply(416);
      }
      if (range && wrongRange) {
        // 16 bytes away, as far as the value allows, and said so.
        const step = range.start >= 16 ? -16 : Math.min(16, body.length - 1 - range.end);
        range.start += step;
        range.end += step;
        entry.quirk = "wrongrange";
      }
      if (range) {
        // Fuzzed: a Content-Range one byte off, or a body one byte short of the range.
        const shift = quirk === "shift" ? 1 : 0;
        const end = quirk === "short" && range.end > range.start ? range.end - 1 : range.end;
        res.setHeader(
          "Content-Range",
          `bytes ${range.start + shift}-${end + shift}/${body.length}`,
        );
        res.setHeader("Content-Length", end - range.start + 1);
        if (quirk === "cut") return cut(res, body.subarray(range.start, end + 1));
        return reply(206, body.subarray(range.start, end + 1));
      }
      if (req.method === "HEAD" && behaviour === "nolength") {
        // No length: streamed, as some servers answer HEAD.
        res.setHeader("Transfer-Encoding", "chunked");
        return reply(200);
      }
      if (
        compress &&
        COMPRESSED.has(extname(file)) &&
        /\bgzip\b/.test(req.headers["accept-encoding"] ?? "")
      ) {
        if (!gzipped.has(file)) gzipped.set(file, gzipSync(body, { level: 9 }));
        res.setHeader("Content-Encoding", "gzip");
        res.setHeader("Vary", "Accept-Encoding");
        res.setHeader("Content-Length", gzipped.get(file).length);
        return reply(200, gzipped.get(file));
      }
      res.setHeader("Content-Length", body.length);
      if (quirk === "cut" && req.method === "GET") return cut(res, body);
      return reply(200, body);
    } catch {
      return reply(404, "not found");
    }
  };
  // `tls` ({ key, cert }): HTTP/2 over TLS, as CDNs serve (HTTP/1.1 too, for clients that ask).
  // The hostile-server quirks are written for HTTP/1.1 and are not for this mode.
  const server = tls
    ? createSecureServer({ ...tls, allowHTTP1: true }, handle)
    : createServer(handle);
  const sessions = new Set();
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });

  await new Promise((ok, fail) => server.listen(port, host, ok).once("error", fail));
  const { port: actual } = server.address();
  return {
    url: `${tls ? "https" : "http"}://${host}:${actual}`,
    log,
    clearLog: () => (log.length = 0),
    close: () =>
      new Promise((ok) => {
        server.close(ok);
        // Stalled and endless answers too.
        if (tls) for (const session of sessions) session.destroy();
        else server.closeAllConnections();
      }),
  };
}
