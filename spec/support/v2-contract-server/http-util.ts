/** Header parsing and response writing for node:http (§1.1, §1.2, §2.1). */
import type { IncomingMessage, ServerResponse } from "node:http";
import { HttpProblem, problems } from "./problem.js";

export const CONNECTION_HEADER = "x-acp-connection-id";

/** §1.1: values are trimmed and an empty value counts as absent. */
export function headerValue(req: IncomingMessage, name: string): string | undefined {
  const raw = req.headers[name.toLowerCase()];
  const value = Array.isArray(raw) ? raw.join(",") : raw;
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function mediaType(entry: string): string {
  return (entry.split(";")[0] ?? "").trim().toLowerCase();
}

/** §1.2 row 1: parameters such as charset are ignored, case is ignored. */
export function requireJsonContentType(req: IncomingMessage): void {
  const contentType = headerValue(req, "content-type");
  if (contentType === undefined || mediaType(contentType) !== "application/json") {
    throw problems.unsupportedMediaType("content-type must be application/json");
  }
}

/** §1.2 row 2 and §1.5: an absent Accept allows everything. */
export function requireAccept(req: IncomingMessage, wanted: string): void {
  const accept = headerValue(req, "accept");
  if (accept === undefined) return;
  const [family] = wanted.split("/");
  const allowed = new Set([wanted, `${family}/*`, "*/*"]);
  if (!accept.split(",").some((entry) => allowed.has(mediaType(entry)))) {
    throw problems.notAcceptable(`accept must allow ${wanted}`);
  }
}

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { ...headers, "content-type": "application/json", "content-length": payload.length });
  res.end(payload);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...headers, "content-length": 0 });
  res.end();
}

/** §2.1: problem bodies use application/problem+json. */
export function sendProblem(res: ServerResponse, problem: HttpProblem): void {
  const payload = Buffer.from(JSON.stringify(problem.body));
  res.writeHead(problem.status, { "content-type": "application/problem+json", "content-length": payload.length });
  res.end(payload);
}

/** §8 [inferred]: axum's query extractor rejects with a plain-text 400, not a problem body. */
export class QueryRejection extends Error {}

export function sendQueryRejection(res: ServerResponse, rejection: QueryRejection): void {
  const payload = Buffer.from(`Failed to deserialize query string: ${rejection.message}`);
  res.writeHead(400, { "content-type": "text/plain; charset=utf-8", "content-length": payload.length });
  res.end(payload);
}
