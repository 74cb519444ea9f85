import { createElement, Fragment, StrictMode, startTransition, type ReactElement } from "react";
import { act, create, type ReactTestRenderer } from "react-test-renderer";
import { BehaviorSubject, Observable, Subject, type Observable as Obs } from "rxjs";
import {
  memoryStore,
  SandboxAgentClient,
  toTranscript,
  type ConnectionState,
  type InputReply,
  type PermissionReply,
  type SandboxEvent,
  type Transcript,
  type TranscriptSource as Source,
} from "../../lib/sandbox/index.js";
import {
  transcriptStore,
  useConnectionState,
  useInput,
  useObservable,
  usePermission,
  useTranscript,
  type InputState,
  type PermissionState,
} from "../../lib/react/index.js";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const S = "sess-1";
const chunk = (text: string): SandboxEvent =>
  ({ kind: "update", sessionId: S, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } }) as SandboxEvent;

/** A client stand-in: each session's transcript$ reduces what the test pushes; subscriptions are counted. */
function fakeClient() {
  const events = new Subject<Source>();
  let subscriptions = 0;
  let active = 0;
  const replies: Array<{ sessionId: string; toolCallId: string; reply: PermissionReply }> = [];
  const answers: Array<{ sessionId: string; requestId: string; reply: InputReply }> = [];
  const transcript$ = new Observable<Transcript>((subscriber) => {
    subscriptions++;
    active++;
    const inner = events.pipe(toTranscript()).subscribe(subscriber);
    return () => {
      active--;
      inner.unsubscribe();
    };
  });
  const client = {
    session: (_id: string) => ({ transcript$ }) as unknown as ReturnType<SandboxAgentClient["session"]>,
    replyPermission: (sessionId: string, toolCallId: string, reply: PermissionReply) => {
      replies.push({ sessionId, toolCallId, reply });
      return true;
    },
    replyInput: (sessionId: string, requestId: string, reply: InputReply) => {
      answers.push({ sessionId, requestId, reply });
      return true;
    },
  };
  return { client, events, replies, answers, subscriptions: () => subscriptions, active: () => active };
}

/** Renders `hook`'s value into `seen` on every render. */
function probe<T>(hook: () => T, seen: T[]): () => ReactElement {
  return function Probe() {
    seen.push(hook());
    return createElement(Fragment);
  };
}

const render = (element: ReactElement, concurrent = false): ReactTestRenderer => {
  let renderer: ReactTestRenderer | undefined;
  act(() => {
    // The option exists in react-test-renderer 18; its types do not list it.
    renderer = create(element, (concurrent ? { unstable_isConcurrent: true } : undefined) as Parameters<typeof create>[1]);
  });
  return renderer as ReactTestRenderer;
};
const macrotask = () => new Promise<void>((resolve) => setTimeout(resolve, 5));

describe("useTranscript", () => {
  it("renders the transcript and re-renders with each change, the unchanged entries being the same objects", () => {
    const { client, events } = fakeClient();
    const seen: Transcript[] = [];
    const renderer = render(createElement(probe(() => useTranscript(client, S), seen)));
    expect(seen.at(-1)?.size).toBe(0);
    act(() => events.next({ kind: "prompt-sent", sessionId: S, prompt: [{ type: "text", text: "hi" }] }));
    act(() => events.next(chunk("Hel")));
    const first = seen.at(-1) as Transcript;
    act(() => events.next(chunk("lo")));
    const second = seen.at(-1) as Transcript;
    expect(second).not.toBe(first);
    expect(second.at(1)).toMatchObject({ kind: "agent-message", text: "Hello" });
    expect(second.at(0)).toBe(first.at(0));
    act(() => renderer.unmount());
  });

  it("returns the same snapshot object on a re-render without a change", () => {
    const { client, events } = fakeClient();
    const seen: Transcript[] = [];
    const Probe = probe(() => useTranscript(client, S), seen);
    const renderer = render(createElement(Probe, { n: 1 }));
    act(() => events.next(chunk("a")));
    const before = seen.length;
    act(() => renderer.update(createElement(Probe, { n: 2 })));
    expect(seen.length).toBe(before + 1);
    expect(seen.at(-1)).toBe(seen.at(-2));
    act(() => renderer.unmount());
  });

  it("shares one subscription between components and ends it after the last one unmounts, StrictMode included", async () => {
    const fake = fakeClient();
    const a: Transcript[] = [];
    const b: Transcript[] = [];
    const tree = createElement(
      StrictMode,
      null,
      createElement(probe(() => useTranscript(fake.client, S), a)),
      createElement(probe(() => useTranscript(fake.client, S), b)),
    );
    const renderer = render(tree);
    await act(macrotask);
    expect(fake.active()).toBe(1);
    act(() => fake.events.next(chunk("x")));
    expect(a.at(-1)).toBe(b.at(-1));
    expect(a.at(-1)?.size).toBe(1);
    act(() => renderer.unmount());
    expect(fake.active()).toBe(1); // lingers until the next macrotask
    await act(macrotask);
    expect(fake.active()).toBe(0);
    expect(fake.subscriptions()).toBe(1);
  });

  it("never shows two components different versions in one commit under concurrent rendering", async () => {
    const { client, events } = fakeClient();
    const commits: Array<[number, number]> = [];
    let left = -1;
    function Left() {
      left = useTranscript(client, S).version;
      return createElement(Fragment);
    }
    function Right() {
      const version = useTranscript(client, S).version;
      commits.push([left, version]);
      return createElement(Fragment);
    }
    const renderer = render(createElement(Fragment, null, createElement(Left), createElement(Right)), true);
    await act(async () => {
      for (let i = 0; i < 50; i++) {
        startTransition(() => events.next(chunk(`c${i}`)));
        if (i % 7 === 0) await Promise.resolve();
      }
    });
    expect(commits.length).toBeGreaterThan(0);
    for (const [l, r] of commits) expect(l).toBe(r);
    const final = transcriptStore(client, S).getSnapshot();
    expect(final.size).toBe(1);
    expect(commits.at(-1)).toEqual([final.version, final.version]);
    act(() => renderer.unmount());
  });

  it("shows a stored session's whole history from a real client that is not connected", async () => {
    const store = memoryStore();
    await store.updateSession({ id: "local-1", agent: "mock", agentSessionId: S, lastConnectionId: "c", createdAt: 1 });
    const stored = (i: number, sender: "client" | "agent", payload: Record<string, unknown>) =>
      store.insertEvent("local-1", { id: `e${i}`, sessionId: "local-1", createdAt: 10 + i, connectionId: "c", sender, payload: { jsonrpc: "2.0", ...payload } });
    await stored(1, "client", { method: "session/prompt", params: { sessionId: S, prompt: [{ type: "text", text: "hi" }] } });
    await stored(2, "agent", { method: "session/update", params: { sessionId: S, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hello" } } } });
    await stored(3, "agent", { result: { stopReason: "end_turn" } });
    const client = new SandboxAgentClient({ baseUrl: "http://127.0.0.1:9", agent: "mock", store, autoConnect: false });
    const seen: Transcript[] = [];
    const renderer = render(createElement(probe(() => useTranscript(client, "local-1"), seen)));
    await act(macrotask);
    expect(seen.at(-1)?.entries.map((e) => e.kind)).toEqual(["user-message", "agent-message", "turn-end"]);
    act(() => renderer.unmount());
    await act(macrotask);
  });

  it("gives the empty transcript without a session id", () => {
    const { client } = fakeClient();
    const seen: Transcript[] = [];
    const renderer = render(createElement(probe(() => useTranscript(client, undefined), seen)));
    expect(seen.at(-1)?.size).toBe(0);
    act(() => renderer.unmount());
  });
});

describe("usePermission", () => {
  it("gives the pending request and a reply bound to it; the request goes once answered", () => {
    const { client, events, replies } = fakeClient();
    const seen: PermissionState[] = [];
    const renderer = render(createElement(probe(() => usePermission(client, S), seen)));
    expect(seen.at(-1)?.request).toBeUndefined();
    expect(seen.at(-1)?.reply("allow")).toBe(false);
    act(() =>
      events.next({
        kind: "permission-request",
        sessionId: S,
        toolCall: { toolCallId: "t1", title: "Write file" },
        options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }],
      }),
    );
    const state = seen.at(-1) as PermissionState;
    expect(state.request).toMatchObject({ toolCallId: "t1", status: "pending" });
    expect(state.reply("allow")).toBe(true);
    expect(state.reply("cancelled")).toBe(true);
    expect(replies).toEqual([
      { sessionId: S, toolCallId: "t1", reply: { outcome: "selected", optionId: "allow" } },
      { sessionId: S, toolCallId: "t1", reply: { outcome: "cancelled" } },
    ]);
    act(() => events.next({ kind: "permission-answered", sessionId: S, toolCallId: "t1", outcome: "selected", optionId: "allow" }));
    expect(seen.at(-1)?.request).toBeUndefined();
    act(() => renderer.unmount());
  });
});

describe("useInput", () => {
  it("gives the pending question and a reply bound to it; the question goes once answered or its turn ends", () => {
    const { client, events, answers } = fakeClient();
    const seen: InputState[] = [];
    const renderer = render(createElement(probe(() => useInput(client, S), seen)));
    expect(seen.at(-1)?.request).toBeUndefined();
    expect(seen.at(-1)?.reply({ action: "decline" })).toBe(false);
    const schema = { type: "object", properties: { project: { type: "string" } } };
    act(() => events.next({
      kind: "input-request",
      sessionId: S,
      requestId: "7",
      request: { kind: "form", message: "Which project?", schema, sessionId: S },
    }));
    const state = seen.at(-1) as InputState;
    expect(state.request).toMatchObject({ kind: "input", requestId: "7", status: "pending" });
    expect(state.request?.request).toMatchObject({ kind: "form", message: "Which project?" });
    expect(state.reply({ action: "accept", values: { project: "rx" } })).toBe(true);
    expect(answers).toEqual([{ sessionId: S, requestId: "7", reply: { action: "accept", values: { project: "rx" } } }]);
    act(() => events.next({ kind: "input-answered", sessionId: S, requestId: "7", action: "accept" }));
    expect(seen.at(-1)?.request).toBeUndefined();
    const url = { kind: "url" as const, message: "Sign in", url: "https://example.invalid/", id: "e-1" };
    act(() => events.next({ kind: "input-request", sessionId: S, requestId: "8", request: url }));
    expect(seen.at(-1)?.request?.requestId).toBe("8");
    act(() => events.next({ kind: "turn-ended", sessionId: S, stopReason: "cancelled" }));
    expect(seen.at(-1)?.request).toBeUndefined();
    act(() => renderer.unmount());
  });
});

describe("usePermission and useInput", () => {
  it("re-render when the pending request or question changes, not for every streamed chunk", () => {
    const { client, events } = fakeClient();
    const permissions: PermissionState[] = [];
    const inputs: InputState[] = [];
    const renderer = render(createElement(Fragment, null,
      createElement(probe(() => usePermission(client, S), permissions)),
      createElement(probe(() => useInput(client, S), inputs))));
    const first = { permissions: permissions.length, inputs: inputs.length };
    for (let i = 0; i < 50; i++) act(() => events.next(chunk(`c${i}`)));
    expect(permissions.length).toBe(first.permissions);
    expect(inputs.length).toBe(first.inputs);
    act(() =>
      events.next({
        kind: "permission-request",
        sessionId: S,
        toolCall: { toolCallId: "t1", title: "Write file" },
        options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }],
      }),
    );
    expect(permissions.at(-1)?.request).toMatchObject({ toolCallId: "t1", status: "pending" });
    const asked = permissions.length;
    for (let i = 0; i < 50; i++) act(() => events.next(chunk(`d${i}`)));
    expect(permissions.length).toBe(asked);
    expect(inputs.length).toBe(first.inputs);
    act(() => renderer.unmount());
  });
});

describe("useConnectionState", () => {
  it("follows the client's state", () => {
    const state$ = new BehaviorSubject<ConnectionState>("disconnected");
    const client = {
      get state() {
        return state$.value;
      },
      state$: state$ as Obs<ConnectionState>,
    };
    const seen: ConnectionState[] = [];
    const renderer = render(createElement(probe(() => useConnectionState(client), seen)));
    expect(seen.at(-1)).toBe("disconnected");
    act(() => state$.next("connecting"));
    act(() => state$.next("connected"));
    expect(seen.at(-1)).toBe("connected");
    act(() => state$.next("reconnecting"));
    expect(seen.at(-1)).toBe("reconnecting");
    act(() => renderer.unmount());
    expect(state$.observed).toBe(false);
  });

  it("reads a real client's state", () => {
    const client = new SandboxAgentClient({ baseUrl: "http://127.0.0.1:9", agent: "mock", autoConnect: false });
    const seen: ConnectionState[] = [];
    const renderer = render(createElement(probe(() => useConnectionState(client), seen)));
    expect(seen.at(-1)).toBe("disconnected");
    act(() => renderer.unmount());
  });
});

describe("useObservable and transcriptStore", () => {
  it("gives an observable's latest value", () => {
    const source = new BehaviorSubject(1);
    const seen: number[] = [];
    const renderer = render(createElement(probe(() => useObservable(source, 0), seen)));
    expect(seen.at(-1)).toBe(1);
    act(() => source.next(2));
    expect(seen.at(-1)).toBe(2);
    act(() => renderer.unmount());
  });

  it("hands out the same store for a client and session, so state libraries can share it", () => {
    const { client } = fakeClient();
    expect(transcriptStore(client, S)).toBe(transcriptStore(client, S));
    expect(transcriptStore(client, "other")).not.toBe(transcriptStore(client, S));
  });
});
