// The client as RxJS: per-session views, session endings, parse errors, cancelling a turn by
// unsubscribing, and retrying a failed turn.
//
//   node --import tsx examples/rx/main.ts --url http://127.0.0.1:2468 --agent mock
//
// Written for the demo agent (lib/providers/local/demo-agent.mjs): "fail" in a prompt makes it error,
// "quick" removes its delays.
import { parseArgs } from "node:util";
import {
  catchError,
  defer,
  filter,
  firstValueFrom,
  lastValueFrom,
  map,
  of,
  retry,
  scan,
  takeUntil,
  tap,
  timeout,
  toArray,
} from "rxjs";
import { SandboxAgentClient, type PromptEvent, type SandboxEvent } from "sandbox-agent-rx";

const { values } = parseArgs({
  options: {
    url: { type: "string", default: "http://127.0.0.1:2468" },
    agent: { type: "string", default: "mock" },
    token: { type: "string" },
  },
});

const client = new SandboxAgentClient({
  baseUrl: values.url,
  agent: values.agent,
  ...(values.token ? { token: values.token } : {}),
  onPermissionRequest: (request) => {
    const allow = request.options.find((option) => option.kind === "allow_once");
    return allow ? { outcome: "selected", optionId: allow.optionId } : { outcome: "cancelled" };
  },
});

/** The text of a message chunk, or undefined for any other event. */
const messageText = (event: SandboxEvent | PromptEvent): string | undefined =>
  event.kind === "update" && event.update.sessionUpdate === "agent_message_chunk" ? event.update.content.text ?? "" : undefined;

// Client-wide streams: subscribe once, for the life of the client.
const watchers = [
  client.sessionEnded$.subscribe((ended) => console.log(`session ended: ${ended.sessionId} (${ended.reason})`)),
  client.parseErrors$.subscribe((error) => console.log(`parse error from ${error.source}: ${error.error}`)),
  client.state$.subscribe((state) => console.log(`state: ${state}`)),
];

try {
  await client.ready;
  const a = await client.newSession();
  const b = await client.newSession();

  // 1. Per-session views: each sees only its own session's events, even with two turns at once.
  const countKinds = (sessionId: string) =>
    client.session(sessionId).events$.pipe(
      takeUntil(client.state$.pipe(filter((state) => state === "disconnected"))),
      scan((counts, event) => counts.set(event.kind, (counts.get(event.kind) ?? 0) + 1), new Map<string, number>()),
    );
  let countsA = new Map<string, number>();
  const viewA = countKinds(a.sessionId).subscribe((counts) => (countsA = counts));
  const [answerA, answerB] = await Promise.all(
    [a, b].map((session) =>
      lastValueFrom(
        client.prompt$(session.sessionId, `quick answer for ${session.sessionId}`).pipe(
          map(messageText),
          filter((text): text is string => text !== undefined),
          toArray(),
          map((parts) => parts.join("")),
        ),
      ),
    ),
  );
  console.log(`view ${a.sessionId}: ${[...countsA].map(([kind, n]) => `${kind}=${n}`).join(" ")}`);
  console.log(`answer ${a.sessionId} quotes its own prompt: ${answerA?.includes(`quick answer for ${a.sessionId}`)}`);
  console.log(`answer ${b.sessionId} quotes its own prompt: ${answerB?.includes(`quick answer for ${b.sessionId}`)}`);
  viewA.unsubscribe();

  // 2. Cancellation by unsubscription: stop the (slow, not "quick") turn at its first tool call.
  //    Unsubscribing from prompt$ sends session/cancel; the agent closes its open tool calls as failed.
  const closedToolCall = firstValueFrom(
    client.session(a.sessionId).events$.pipe(
      filter((event) => event.kind === "update" && event.update.sessionUpdate === "tool_call_update" && event.update.status === "failed"),
      timeout(10_000),
    ),
  );
  const firstToolCall = client.prompt$(a.sessionId, "take your time").pipe(
    filter((event) => event.kind === "update" && event.update.sessionUpdate === "tool_call"),
  );
  await firstValueFrom(firstToolCall); // firstValueFrom unsubscribes after the first value
  await closedToolCall;
  console.log("cancelled by unsubscribing: the agent reported its open tool call as failed");

  // 3. Retry of a failed turn: defer() builds a fresh prompt$ on every subscription, so the retry
  //    sends a new prompt. The first attempt fails on purpose; the second one succeeds.
  let attempt = 0;
  const stopReason = await lastValueFrom(
    defer(() => {
      attempt += 1;
      return client.prompt$(b.sessionId, attempt === 1 ? "quick fail" : "quick retry");
    }).pipe(
      tap({ error: (error: unknown) => console.log(`attempt ${attempt} failed: ${(error as Error).message}`) }),
      retry(1),
      filter((event): event is Extract<PromptEvent, { kind: "stop" }> => event.kind === "stop"),
      map((event) => event.stopReason),
      catchError((error: unknown) => of(`error: ${(error as Error).message}`)),
    ),
  );
  console.log(`after ${attempt} attempts: ${stopReason}`);
} catch (error) {
  console.error(`failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
  process.exitCode = 1;
} finally {
  await client.disconnect();
  for (const watcher of watchers) watcher.unsubscribe();
}
