// The create request docker() sends: what a caller's `createContainerOptions` adds to it, and what the
// provider keeps whatever they say (networking, bindings, ownership labels), since reaching the server
// and sweep() depend on them. No engine needed: this is the request body only.
import { containerSpec, infoFromContainer } from "../../lib/providers/docker/container-spec.js";
import { dockerSettings, type DockerProviderOptions } from "../../lib/providers/docker/options.js";
import type Dockerode from "dockerode";

const OWNERSHIP = { "sandbox-agent-rx.managed": "true", "sandbox-agent-rx.owner-pid": "4242" };
const plan = { port: 40_000, token: "t0k", labels: OWNERSHIP };
const spec = (options: Omit<DockerProviderOptions, "image">) =>
  containerSpec(dockerSettings({ image: "sandbox-agent:0.4.2", ...options }), plan);

/** What `inspect` would report for a container created from `create`. */
const inspected = (create: Dockerode.ContainerCreateOptions) =>
  ({ Id: "c1", Config: { Cmd: create.Cmd, WorkingDir: create.WorkingDir }, HostConfig: create.HostConfig }) as
  unknown as Dockerode.ContainerInspectInfo;

describe("docker() create request with createContainerOptions", () => {
  it("a HostConfig is merged: host networking and the binds are kept beside the caller's limits", async () => {
    const create = await spec({
      binds: ["/srv/p:/home/sandbox/p"],
      createContainerOptions: { HostConfig: { Memory: 512 * 1024 * 1024, Binds: ["/srv/q:/q:ro"] } },
    });
    expect(create.HostConfig).toEqual({
      NetworkMode: "host",
      Binds: ["/srv/p:/home/sandbox/p", "/srv/q:/q:ro"],
      Memory: 512 * 1024 * 1024,
    });
    expect(infoFromContainer(inspected(create)).baseUrl).toBe("http://127.0.0.1:40000");
  });

  it("on a bridge network the published port survives the caller's HostConfig and their own ports", async () => {
    const create = await spec({
      networkMode: "bridge",
      createContainerOptions: {
        HostConfig: { NetworkMode: "host", CpuShares: 256, PortBindings: { "9000/tcp": [{ HostPort: "9000" }] } },
        ExposedPorts: { "9000/tcp": {} },
      },
    });
    expect(create.HostConfig).toMatchObject({
      NetworkMode: "bridge",
      CpuShares: 256,
      PortBindings: {
        "2468/tcp": [{ HostIp: "127.0.0.1", HostPort: "40000" }],
        "9000/tcp": [{ HostPort: "9000" }],
      },
    });
    expect(create.ExposedPorts).toEqual({ "2468/tcp": {}, "9000/tcp": {} });
    expect(infoFromContainer(inspected(create)).baseUrl).toBe("http://127.0.0.1:40000");
  });

  it("Labels are merged and the ownership labels are applied last, so sweep() still finds the container", async () => {
    const create = await spec({
      labels: { team: "a" },
      createContainerOptions: { Labels: { tier: "gold", "sandbox-agent-rx.managed": "false" } },
    });
    expect(create.Labels).toEqual({ team: "a", tier: "gold", ...OWNERSHIP });
  });

  it("Env is appended to the provider's, which the server needs (HOME, PATH)", async () => {
    const create = await spec({ env: ["A=1"], createContainerOptions: { Env: ["B=2"] } });
    expect(create.Env).toEqual(expect.arrayContaining(["A=1", "B=2", "SANDBOX_AGENT_LOG_STDOUT=1"]));
    expect(create.Env?.at(-1)).toBe("B=2");
    expect(create.Env?.some((e) => e.startsWith("HOME="))).toBe(true);
  });

  it("other keys replace the provider's (Cmd, User), as the escape hatch promises", async () => {
    const create = await spec({ createContainerOptions: { Cmd: ["/bin/true"], User: "1000" } });
    expect(create.Cmd).toEqual(["/bin/true"]);
    expect(create.User).toBe("1000");
  });
});
