// Kills any process a test helper registered and did not stop (a crashed or timed-out test).
import { killRegisteredProcesses } from "./process-registry.js";
export default async function globalTeardown() {
  const leaked = killRegisteredProcesses();
  if (leaked > 0) console.warn(`global teardown: killed ${leaked} process group(s) a test left running`);
}
