// A fetch for the SDK client that lets requests made while the page goes away outlive it. A closing
// or reloading page cancels its pending fetches; requests made from pagehide on (the disconnect of
// main.ts) are sent with `keepalive`, which the browser finishes after the page is gone. This helps
// only a request whose fetch call is reached before the page is torn down: the SDK awaits before it
// calls fetch, so the terminal's shell is killed by a fetch of its own (page-exit-kill.ts).
let unloading = false;
// Registered before any panel's listener (this module loads first), so the flag is up when they run.
addEventListener("pagehide", () => (unloading = true));
// A page restored from the back/forward cache is alive again.
addEventListener("pageshow", () => (unloading = false));

export const unloadSafeFetch: typeof fetch = (input, init) =>
  fetch(input, unloading ? { ...init, keepalive: true } : init);
