// docker(): real containers on a real Docker Engine (ours, started here when none runs), the real
// 0.4.2 server in an image made without a registry, the scripted agent as its `mock` agent.
import { randomUUID } from "node:crypto";
import { firstValueFrom, take } from "rxjs";
import { docker, DOCKER_LABELS, IMAGE_LAYOUT, type DockerProvider } from "../../lib/providers/docker/index.js";
import { SandboxAgentError, type DisconnectInfo } from "../../lib/sandbox/index.js";
import { SandboxStartError } from "../../lib/sandbox/errors.js";
import { startSandbox } from "../../lib/sandbox/index.js";
import { describeWith } from "../support/system-component.js";
import { DOCKER, ensureDockerDaemon, type DockerDaemon } from "./support/dockerd.js";
import { buildTestImage, TEST_BINDS } from "./support/docker-image.js";

const text = (t: string) => [{ type: "text" as const, text: t }];
const RUN = randomUUID();
const RUN_LABEL = "sandbox-agent-rx.test-run";

describeWith([DOCKER])("docker() provider", () => {
  let daemon: DockerDaemon;
  let image: string;
  let provider: DockerProvider;
  const ours = async (): Promise<string[]> =>
    (await daemon.docker.listContainers({ all: true, filters: { label: [`${RUN_LABEL}=${RUN}`] } })).map((c) => c.Id);

  beforeAll(async () => {
    daemon = await ensureDockerDaemon();
    image = await buildTestImage(daemon.docker);
    provider = docker({ image, docker: daemon.docker, binds: TEST_BINDS, labels: { [RUN_LABEL]: RUN } });
  }, 120_000);

  afterAll(async () => {
    await daemon?.stop(`${RUN_LABEL}=${RUN}`);
  }, 60_000);

  it("starts a container, prompts through the scripted agent, and destroys it", async () => {
    const started = await startSandbox({ sandbox: provider, agent: "mock" });
    try {
      const details = await daemon.docker.getContainer(started.info.id).inspect();
      expect(details.HostConfig.NetworkMode).toBe("host");
      expect(details.Config.Labels?.[DOCKER_LABELS.managed]).toBe("true");
      expect(details.Config.Labels?.[DOCKER_LABELS.ownerPid]).toBe(String(process.pid));
      expect(started.info.defaultCwd).toBe(IMAGE_LAYOUT.home);
      const session = await started.client.newSession();
      const outcome = await started.client.prompt(session.sessionId, text("chunks 3"));
      expect(outcome.stopReason).toBe("end_turn");
      expect((await fetch(`${started.info.baseUrl}/v1/agents`)).status).toBe(401);
    } finally {
      await started.destroy();
    }
    expect(await ours()).toEqual([]);
    await started.destroy(); // idempotent
  }, 90_000);

  it("runs 10 sandboxes in parallel, each prompted, all destroyed", async () => {
    const fleet = await Promise.all(Array.from({ length: 10 }, () => startSandbox({ sandbox: provider, agent: "mock" })));
    try {
      expect(new Set(fleet.map((s) => s.info.baseUrl)).size).toBe(10);
      const outcomes = await Promise.all(
        fleet.map(async (s, i) => {
          const session = await s.client.newSession();
          return s.client.prompt(session.sessionId, text(`chunks ${i + 1}`));
        }),
      );
      expect(outcomes.map((o) => o.stopReason)).toEqual(Array(10).fill("end_turn"));
    } finally {
      await Promise.all(fleet.map((s) => s.destroy()));
    }
    expect(await ours()).toEqual([]);
  }, 240_000);

  it("a container killed under a live client ends its connection with a typed loss; sweep() removes it", async () => {
    const started = await startSandbox({
      sandbox: provider,
      agent: "mock",
      reconnect: { maxRetries: 2, initialDelayMs: 50, maxDelayMs: 100, jitter: 0 },
    });
    const lost = firstValueFrom(started.client.disconnected$.pipe(take(1)));
    const session = await started.client.newSession();
    const pending = started.client.prompt(session.sessionId, text("wait")).then(
      () => undefined,
      (error: unknown) => error,
    );
    await new Promise((r) => setTimeout(r, 300));
    await daemon.docker.getContainer(started.info.id).kill();
    const info: DisconnectInfo = await lost;
    expect(info.reason).not.toBe("disconnected");
    expect(info.error).toMatchObject({ name: "SandboxAgentError", kind: "connection-lost" });
    expect(await pending).toBeInstanceOf(SandboxAgentError);
    // A live sandbox of this provider survives the sweep; the dead one goes.
    const alive = await provider.create();
    try {
      expect(await provider.sweep()).toEqual([started.info.id]);
      expect(await ours()).toEqual([alive.id]);
    } finally {
      await provider.destroy(alive.id);
    }
    await started.destroy();
    expect(await ours()).toEqual([]);
  }, 120_000);

  it("sweep() removes running sandboxes whose owner process is gone", async () => {
    // A container as a crashed process would have left it: our labels, a pid that no longer runs.
    const orphanProvider = docker({ image, docker: daemon.docker, binds: TEST_BINDS, labels: { [RUN_LABEL]: RUN } });
    const orphan = await orphanProvider.create();
    const container = daemon.docker.getContainer(orphan.id);
    const spec = await container.inspect();
    const deadPid = 2 ** 22 + 17; // above pid_max's default: never a live process
    const relabelled = await daemon.docker.createContainer({
      Image: spec.Config.Image,
      Cmd: spec.Config.Cmd,
      Env: spec.Config.Env,
      Labels: { ...spec.Config.Labels, [DOCKER_LABELS.ownerPid]: String(deadPid) },
      HostConfig: { NetworkMode: "host", Binds: TEST_BINDS },
    });
    await orphanProvider.destroy(orphan.id);
    await relabelled.start();
    const mine = await provider.create();
    try {
      const removed = await provider.sweep();
      expect(removed).toEqual([relabelled.id]);
      expect(await ours()).toEqual([mine.id]);
    } finally {
      await provider.destroy(mine.id);
    }
  }, 120_000);

  it("fails start-up with the container's output tail", async () => {
    const broken = docker({
      image,
      docker: daemon.docker,
      labels: { [RUN_LABEL]: RUN },
      createContainerOptions: { Cmd: [IMAGE_LAYOUT.binary, "server", "--no-such-flag"] },
    });
    const error = await broken.create().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxStartError);
    expect((error as SandboxStartError).reason).toBe("exited");
    expect((error as SandboxStartError).output).toContain("--no-such-flag");
    expect(await ours()).toEqual([]);
  }, 60_000);

  it("createContainerOptions' HostConfig and Labels add to the provider's: reachable, sweep() finds it", async () => {
    const limited = docker({
      image,
      docker: daemon.docker,
      binds: TEST_BINDS,
      createContainerOptions: {
        HostConfig: { Memory: 512 * 1024 * 1024 },
        Labels: { [RUN_LABEL]: RUN, [DOCKER_LABELS.managed]: "false" },
      },
      startTimeoutMs: 30_000,
    });
    const info = await limited.create();
    try {
      const headers = { authorization: `Bearer ${info.token}` };
      expect((await fetch(`${info.baseUrl}/v1/health`, { headers })).status).toBe(200);
      const details = await daemon.docker.getContainer(info.id).inspect();
      expect(details.HostConfig).toMatchObject({ NetworkMode: "host", Memory: 512 * 1024 * 1024, Binds: TEST_BINDS });
      expect(details.Config.Labels?.[DOCKER_LABELS.managed]).toBe("true");
      await daemon.docker.getContainer(info.id).kill();
      expect(await limited.sweep()).toContain(info.id);
      expect(await ours()).toEqual([]);
    } finally {
      await limited.destroy(info.id);
    }
  }, 90_000);

  it("pauses and resumes a sandbox, and reconnects to it by id", async () => {
    const info = await provider.create();
    const headers = { Authorization: `Bearer ${info.token}` };
    try {
      await provider.pause?.(info.id);
      await expect(fetch(`${info.baseUrl}/v1/health`, { headers, signal: AbortSignal.timeout(500) })).rejects.toThrow();
      expect((await provider.resume?.(info.id))?.baseUrl).toBe(info.baseUrl);
      expect((await fetch(`${info.baseUrl}/v1/health`, { headers })).status).toBe(200);
      const again = await startSandbox({ sandbox: provider, agent: "mock", sandboxId: info.id });
      expect(again.info).toEqual(info);
      const session = await again.client.newSession();
      expect((await again.client.prompt(session.sessionId, text("chunks 1"))).stopReason).toBe("end_turn");
      await again.client.disconnect();
    } finally {
      await provider.destroy(info.id);
    }
  }, 90_000);
});
