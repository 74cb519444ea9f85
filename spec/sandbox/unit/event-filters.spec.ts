// isEvent / isUpdate and ofKind / ofUpdate: they keep the right events, in order, and the compiler
// narrows what they let through (checked by compiling snippets against the library).
import { from, lastValueFrom, toArray } from "rxjs";
import { isEvent, isUpdate, ofKind, ofUpdate, type PromptEvent, type SandboxEvent } from "../../../lib/sandbox/index.js";
import { diagnosticsOf } from "../../examples/snippets.js";

const chunk = (text: string): SandboxEvent => ({
  kind: "update",
  sessionId: "s1",
  update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
});
const thought: SandboxEvent = {
  kind: "update",
  sessionId: "s1",
  update: { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hmm" } },
};
const plan: SandboxEvent = { kind: "update", sessionId: "s1", update: { sessionUpdate: "plan", entries: [] } };
const ended: SandboxEvent = { kind: "session-ended", sessionId: "s1", reason: "completed" };
const lost: SandboxEvent = { kind: "events-lost", stream: "s1", firstMissing: 3, lastMissing: 4 };
const unknown: SandboxEvent = { kind: "unknown-update", sessionId: "s1", update: { sessionUpdate: "usage_update" } };
const stop: PromptEvent = { kind: "stop", stopReason: "end_turn" };
const events: PromptEvent[] = [chunk("Hel"), thought, plan, unknown, chunk("lo"), lost, ended, stop];

const collect = <T>(source: import("rxjs").Observable<T>) => lastValueFrom(source.pipe(toArray()));

describe("isEvent and isUpdate", () => {
  it("isEvent keeps the given kinds only", () => {
    expect(events.filter((e) => isEvent(e, "session-ended", "stop"))).toEqual([ended, stop]);
    expect(events.filter((e) => isEvent(e, "events-lost"))).toEqual([lost]);
  });

  it("isUpdate keeps updates of the given kinds, or every known update without kinds", () => {
    expect(events.filter((e) => isUpdate(e, "agent_message_chunk"))).toEqual([chunk("Hel"), chunk("lo")]);
    expect(events.filter((e) => isUpdate(e, "plan", "agent_thought_chunk"))).toEqual([thought, plan]);
    // An update of a kind the client does not know is an "unknown-update" event, not an update.
    expect(events.filter((e) => isUpdate(e))).toEqual([chunk("Hel"), thought, plan, chunk("lo")]);
  });
});

describe("ofKind and ofUpdate", () => {
  it("ofUpdate streams the matching updates in order", async () => {
    const texts = await collect(from(events).pipe(ofUpdate("agent_message_chunk")));
    expect(texts.map(({ update }) => update.content.text).join("")).toBe("Hello");
  });

  it("ofKind streams the matching events of a prompt$ in order, the stop event included", async () => {
    expect(await collect(from(events).pipe(ofKind("events-lost", "stop")))).toEqual([lost, stop]);
  });

  it("narrow the type: the compiler accepts the kind's fields and refuses the others", () => {
    const code = [
      'import { Observable } from "rxjs";',
      'import { isEvent, isUpdate, ofKind, ofUpdate, type PromptEvent, type SandboxEvent } from "sandbox-agent-rx";',
      "declare const events$: Observable<SandboxEvent>;",
      "declare const prompt$: Observable<PromptEvent>;",
      "declare const event: SandboxEvent;",
      "events$.pipe(ofUpdate(\"agent_message_chunk\")).subscribe(({ update }) => update.content.text?.toUpperCase());",
      "events$.pipe(ofUpdate(\"plan\", \"tool_call\")).subscribe(({ update }) => update.sessionUpdate === \"plan\" ? update.entries : update.toolCallId);",
      "events$.pipe(ofKind(\"session-ended\")).subscribe((ended) => ended.reason.length);",
      "prompt$.pipe(ofKind(\"stop\")).subscribe((stop) => stop.stopReason.length);",
      "if (isUpdate(event, \"tool_call_update\")) event.update.toolCallId.length;",
      "if (isEvent(event, \"permission-request\")) event.options.length;",
      "// @ts-expect-error a plan update has no typed content (only the loose schema's unknown extras)",
      "events$.pipe(ofUpdate(\"plan\")).subscribe(({ update }) => update.content.text);",
      "// @ts-expect-error session-ended events have no stopReason",
      "events$.pipe(ofKind(\"session-ended\")).subscribe((ended) => ended.stopReason);",
      "// @ts-expect-error \"stop\" is not a kind of events$ (only of prompt$): nothing would pass",
      "events$.pipe(ofKind(\"stop\")).subscribe((stop) => stop.stopReason);",
      "// @ts-expect-error not a session update kind",
      "events$.pipe(ofUpdate(\"agent_message_chunks\"));",
    ].join("\n");
    const found = diagnosticsOf([{ label: "narrowing.ts", blocks: [{ line: 1, code }] }]);
    expect(found).toEqual([]);
  }, 120_000);
});
