/**
 * `sandbox-agent-rx/docker`: sandboxes as Docker containers through the Engine API. Needs the
 * optional peer dependency `dockerode`; Node only.
 *
 * @module sandbox-agent-rx/docker
 */
export { docker, type DockerProvider } from "./docker.js";
export type { DockerProviderOptions } from "./options.js";
export { buildSandboxImage, type BuildImageOptions } from "./image.js";
export { IMAGE_LAYOUT } from "../defaults.js";
export { LABELS as DOCKER_LABELS } from "./ownership.js";
