// A fetch for the SDK client that lets requests made while the page goes away outlive it. A closing
// or reloading page cancels its pending fetches, so the request that ends the terminal's shell
// (sent from a pagehide listener) never reached the server and the shell kept running. Requests
// made from then on are sent with `keepalive`, which the browser finishes after the page is gone.
let unloading = false;
// Registered before any panel's listener (this module loads first), so the flag is up when they run.
addEventListener("pagehide", () => (unloading = true));
// A page restored from the back/forward cache is alive again.
addEventListener("pageshow", () => (unloading = false));

export const unloadSafeFetch: typeof fetch = (input, init) =>
  fetch(input, unloading ? { ...init, keepalive: true } : init);
