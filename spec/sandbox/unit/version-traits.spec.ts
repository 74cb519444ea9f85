// The sandbox layer's per-version differences are one record per version (`VERSION_TRAITS`), read
// where a call's shape depends on the version. Each trait follows from the protocol layer's own data
// for that version, so the two cannot drift apart, and no other file of the layer compares versions.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PROTOCOL_PROFILES } from "../../../lib/acp-http/protocol-versions.js";
import { VERSION_TRAITS } from "../../../lib/sandbox/connection/version-traits.js";

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

describe("the sandbox layer's per-version differences", () => {
  it.each([1, 2] as const)("for version %p, agree with what the protocol layer says of it", (version) => {
    const protocol = PROTOCOL_PROFILES[version];
    expect(VERSION_TRAITS[version]).toEqual({
      version,
      // Only v1's initialize has the client capabilities the option `shows` is said in.
      announcesShows: protocol.initialize.capabilities === "clientCapabilities",
      promptEndsOnIdle: protocol.turnEnd === "idle",
      reopensWithResume: protocol.methods["loadSession"] === undefined,
      configOptionsOnly:
        protocol.methods["setSessionMode"] === undefined && protocol.methods["unstableSetSessionModel"] === undefined,
    });
  });

  it("are the only place in lib/sandbox that compares a protocol version", () => {
    const root = join(process.cwd(), "lib", "sandbox");
    const comparing = sources(root)
      .filter((file) => !file.endsWith("version-traits.ts"))
      .filter((file) => /protocolVersion\s*[!=]==?\s*\d/.test(readFileSync(file, "utf8")));
    expect(comparing).toEqual([]);
  });
});
