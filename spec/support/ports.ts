// Loopback ports for the servers specs start: the local provider's own helpers (the ones `local()`
// and `docker()` use), in one place for every spec and support file.
export { freePort, portIsFree } from "../../lib/providers/local/ports.js";
