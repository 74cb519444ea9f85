import { SandboxAgentError } from "./sandbox-agent-error.js";

/** The server or agent does not offer this feature; nothing was sent. */
export class UnsupportedFeatureError extends SandboxAgentError {
  override name = "UnsupportedFeatureError";
  readonly feature: string;

  constructor(feature: string, detail: string) {
    super(`${feature} is not supported here: ${detail}`);
    this.feature = feature;
  }
}
