// The test image: the pinned static sandbox-agent binary, the scripted agent as its `mock` agent,
// and symlinks so that a read-only bind of the host's /usr gives the agent `node` and its libraries.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type Docker from "dockerode";
import { buildSandboxImage, IMAGE_LAYOUT } from "../../../lib/providers/docker/index.js";

export const TEST_IMAGE = "sandbox-agent-rx-test/sandbox-agent:0.4.2";
/** Binds the test containers need: the host's /usr (node for the scripted agent). */
export const TEST_BINDS = ["/usr:/usr:ro"];

const scriptedAgent = fileURLToPath(new URL("../../support/scripted-agent.mjs", import.meta.url));

export function buildTestImage(docker: Docker, agentScript = scriptedAgent): Promise<string> {
  return buildSandboxImage({
    docker,
    tag: TEST_IMAGE,
    files: [{ path: `${IMAGE_LAYOUT.dataHome}/sandbox-agent/bin/agent_processes/mock-acp`, content: readFileSync(agentScript), mode: 0o755 }],
    // Debian's merged /usr: /lib and /lib64 are links into it, as on the host.
    symlinks: [{ path: "lib", target: "usr/lib" }, { path: "lib64", target: "usr/lib64" }],
  });
}
