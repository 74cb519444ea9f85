// Which of the agent's requests in a stored history still wait for the user: those a client back on
// the same connection takes over after a reload.
import { replayedBy, WaitingRequests } from "../../../lib/sandbox/sessions/resume.js";
import { inputAnswerPayload, permissionAnswerPayload } from "../../../lib/sandbox/transcript/index.js";
import type { SessionEvent } from "../../../lib/sandbox/persistence/schemas.js";

const SESSION = "s1";
let index = 0;
function stored(sender: "agent" | "client", payload: Record<string, unknown>): SessionEvent {
  index += 1;
  const at = { id: `e${index}`, eventIndex: index, createdAt: index };
  return { ...at, sessionId: SESSION, connectionId: "c", sender, payload: payload as SessionEvent["payload"] };
}

const prompt = () => stored("client", {
  jsonrpc: "2.0",
  method: "session/prompt",
  params: { sessionId: SESSION, prompt: [{ type: "text", text: "go" }] },
});
const permission = (id: string | number, toolCallId: string) => stored("agent", {
  jsonrpc: "2.0",
  id,
  method: "session/request_permission",
  params: {
    sessionId: SESSION,
    toolCall: { toolCallId, title: "Write a file" },
    options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }],
  },
});
const question = (id: string | number) => stored("agent", {
  jsonrpc: "2.0",
  id,
  method: "elicitation/create",
  params: { sessionId: SESSION, mode: "form", message: "Which project?", requestedSchema: { type: "object" } },
});
const permissionAnswered = (toolCallId: string) =>
  stored("client", permissionAnswerPayload({
    kind: "permission-answered",
    sessionId: SESSION,
    toolCallId,
    outcome: "selected",
    optionId: "allow",
  }));
const questionAnswered = (requestId: string) =>
  stored("client", inputAnswerPayload({ kind: "input-answered", sessionId: SESSION, requestId, action: "decline" }));
const turnEnded = () => stored("agent", { jsonrpc: "2.0", result: { stopReason: "end_turn" } });

function waitingAfter(events: SessionEvent[]) {
  const waiting = new WaitingRequests();
  for (const event of events) waiting.read(event);
  return waiting.requests().map((request) => request.id);
}

describe("the agent's requests still waiting in a stored history", () => {
  it("are the permissions and questions of the open turn without a stored answer, oldest first", () => {
    const events = [prompt(), permission("p1", "tool-1"), question(7), permission("p2", "tool-2"),
      permissionAnswered("tool-1")];
    expect(waitingAfter(events)).toEqual([7, "p2"]);
    expect(waitingAfter([...events, questionAnswered("7")])).toEqual(["p2"]);
  });

  it("are none once their turn ended, the session ended or the agent exited", () => {
    expect(waitingAfter([prompt(), permission("p1", "tool-1"), turnEnded()])).toEqual([]);
    const endedParams = { sessionId: SESSION };
    const ended = stored("agent", { jsonrpc: "2.0", method: "_sandboxagent/session/ended", params: endedParams });
    expect(waitingAfter([prompt(), question(3), ended])).toEqual([]);
    const exitParams = { code: 1, success: false };
    const exited = stored("agent", { jsonrpc: "2.0", method: "_adapter/agent_exited", params: exitParams });
    expect(waitingAfter([prompt(), question(3), exited])).toEqual([]);
  });

  it("keeps the stored envelope itself, id and all, for the answer to go out under", () => {
    const request = permission("agent-req-1", "tool-9");
    expect(new WaitingRequests().requests()).toEqual([]);
    const waiting = new WaitingRequests();
    waiting.read(prompt());
    waiting.read(request);
    expect(waiting.requests()).toEqual([request.payload]);
  });
});

describe("whether the reattached stream brings a waiting request back itself", () => {
  it("does for one stored after the cursor the stream resumes from, or any when it resumes without one", () => {
    expect(replayedBy("7", "8")).toBe(true);
    expect(replayedBy(undefined, "8")).toBe(true);
    expect(replayedBy("8", "8")).toBe(false);
    expect(replayedBy("12", "9")).toBe(false);
  });

  it("does not when a cursor cannot be compared: that request is adopted", () => {
    expect(replayedBy("7", undefined)).toBe(false);
    expect(replayedBy("abc", "8")).toBe(false);
    expect(replayedBy("7", "x-8")).toBe(false);
  });
});
