import { jest } from "@jest/globals";
import { Component, createElement, Fragment, type ReactElement, type ReactNode } from "react";
import { act, create, type ReactTestRenderer } from "react-test-renderer";
import { config, firstValueFrom, Observable, Subject, take, timeout } from "rxjs";
import { memoryStore, SandboxAgentClient, StoreError, type SessionStore } from "../../lib/sandbox/index.js";
import { observableStore, useObservable, useTranscript } from "../../lib/react/index.js";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/** A boundary that records what it caught and renders nothing while it holds an error. */
class Boundary extends Component<{ caught: unknown[]; children?: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }
  override componentDidCatch(error: unknown): void {
    this.props.caught.push(error);
  }
  override render(): ReactNode {
    return this.state.failed ? null : this.props.children;
  }
}

function probe<T>(hook: () => T, seen: T[]): () => ReactElement {
  return function Probe() {
    seen.push(hook());
    return createElement(Fragment);
  };
}

const macrotask = () => new Promise<void>((resolve) => setTimeout(resolve, 5));

/** Until `check` holds, rendering between tries; bounded. */
async function until(check: () => boolean, what: string, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await act(macrotask);
  }
}

describe("the React hooks when their stream fails", () => {
  let unhandled: unknown[];
  let previous: typeof config.onUnhandledError;
  let consoleError: { mockRestore(): void };
  beforeEach(() => {
    unhandled = [];
    previous = config.onUnhandledError;
    // Where RxJS sends an error nobody handles (by default thrown in a timer: an uncaught exception).
    config.onUnhandledError = (error) => unhandled.push(error);
    // React logs each error a boundary catches.
    consoleError = jest.spyOn(console, "error").mockImplementation(() => undefined);
  });
  afterEach(() => {
    config.onUnhandledError = previous;
    consoleError.mockRestore();
  });

  it("useTranscript throws a store that cannot be read into the error boundary and onto storeErrors$", async () => {
    const failing: SessionStore = {
      ...memoryStore(),
      listEvents: () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:5432")),
    };
    const client = new SandboxAgentClient({
      baseUrl: "http://127.0.0.1:9",
      agent: "mock",
      store: failing,
      autoConnect: false,
    });
    const reported = firstValueFrom(client.storeErrors$.pipe(take(1), timeout(3000)));
    const caught: unknown[] = [];
    const seen: unknown[] = [];
    let renderer: ReactTestRenderer | undefined;
    act(() => {
      renderer = create(createElement(Boundary, { caught }, createElement(probe(() => useTranscript(client, "s1"), seen))));
    });
    await until(() => caught.length > 0, "the boundary to catch the error");
    const error = caught[0] as StoreError;
    expect(error).toBeInstanceOf(StoreError);
    expect(error.message).toMatch(/^transcript\$: .*ECONNREFUSED/);
    expect(error.sessionId).toBe("s1");
    const onStream = await reported;
    expect(onStream).toBeInstanceOf(StoreError);
    expect(onStream.message).toMatch(/transcript\$/);
    await act(macrotask);
    expect(unhandled).toEqual([]);
    act(() => renderer?.unmount());
    await act(macrotask);
  });

  it("useObservable throws the error into the boundary, and a remount after it subscribes afresh", async () => {
    let attempts = 0;
    const values = new Subject<number>();
    const source = new Observable<number>((subscriber) => {
      attempts++;
      if (attempts === 1) {
        subscriber.error(new Error("first attempt failed"));
        return undefined;
      }
      return values.subscribe(subscriber);
    });
    const caught: unknown[] = [];
    const seen: number[] = [];
    let renderer: ReactTestRenderer | undefined;
    const tree = (key: number) =>
      createElement(Boundary, { caught, key }, createElement(probe(() => useObservable(source, 0), seen)));
    act(() => {
      renderer = create(tree(1));
    });
    await until(() => caught.length > 0, "the boundary to catch the error");
    expect((caught[0] as Error).message).toBe("first attempt failed");
    await act(macrotask);
    expect(unhandled).toEqual([]);

    // A new boundary (what a reset does) mounts the reader again: it subscribes afresh and renders.
    act(() => renderer?.update(tree(2)));
    await act(macrotask);
    act(() => values.next(7));
    expect(attempts).toBe(2);
    expect(seen.at(-1)).toBe(7);
    expect(caught).toHaveLength(1);
    act(() => renderer?.unmount());
  });

  it("an observableStore keeps the last value and reports the failure to its listeners", async () => {
    const source = new Subject<number>();
    const store = observableStore(source, 0);
    let told = 0;
    const stop = store.subscribe(() => told++);
    source.next(1);
    source.error(new Error("gone"));
    expect(store.getSnapshot()).toBe(1);
    expect((store.getFailure()?.error as Error).message).toBe("gone");
    expect(told).toBe(2);
    // RxJS reports an unhandled error in a timer: wait one.
    await macrotask();
    expect(unhandled).toEqual([]);
    stop();
  });
});
