/** §8: the HTTP control plane besides /v2/rpc. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { readRegularFile, resolvePath, uploadTar, writeWithParents } from "./fs.js";
import { headerValue, QueryRejection, readBody, sendJson } from "./http-util.js";
import { problems } from "./problem.js";
import type { Runtime } from "./runtime.js";

interface FsQuery {
  path: string | undefined;
  sessionId: string | undefined;
}

/**
 * §8: `sessionId` with a `session_id` alias. [inferred] Sending both is serde's "duplicate field",
 * a 400 from the query extractor, as is a repeated key.
 */
function fsQuery(url: URL): FsQuery {
  const query = url.searchParams;
  for (const key of ["path", "sessionId", "session_id"]) {
    if (query.getAll(key).length > 1) throw new QueryRejection(`duplicate field \`${key === "path" ? key : "sessionId"}\``);
  }
  if (query.has("sessionId") && query.has("session_id")) throw new QueryRejection("duplicate field `sessionId`");
  return { path: query.get("path") ?? undefined, sessionId: query.get("sessionId") ?? query.get("session_id") ?? undefined };
}

function requiredPath(query: FsQuery): string {
  if (query.path === undefined) throw new QueryRejection("missing field `path`");
  return query.path;
}

export function handleHealth(res: ServerResponse): void {
  sendJson(res, 200, { status: "ok" });
}

export async function handleReadFile(runtime: Runtime, url: URL, res: ServerResponse): Promise<void> {
  const query = fsQuery(url);
  const bytes = await readRegularFile(resolvePath(runtime, requiredPath(query), query.sessionId));
  res.writeHead(200, { "content-type": "application/octet-stream", "content-length": bytes.length });
  res.end(bytes);
}

export async function handleWriteFile(runtime: Runtime, url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const query = fsQuery(url);
  const path = resolvePath(runtime, requiredPath(query), query.sessionId);
  sendJson(res, 200, await writeWithParents(path, await readBody(req)));
}

/** §8: [inferred] the archive must be sent as application/x-tar. */
export async function handleUploadBatch(runtime: Runtime, url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const query = fsQuery(url);
  const contentType = headerValue(req, "content-type")?.split(";")[0]?.trim().toLowerCase();
  if (contentType !== "application/x-tar") throw problems.invalidRequest("content-type must be application/x-tar");
  const base = resolvePath(runtime, query.path ?? ".", query.sessionId);
  sendJson(res, 200, await uploadTar(base, await readBody(req)));
}
