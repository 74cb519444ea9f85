import { SandboxAgentError } from "./sandbox-agent-error.js";

/**
 * The server or agent does not offer this feature, or not with this value; nothing was sent.
 * When the refusal is about a value (a mode, a config option, a category), `validValues` lists
 * what the session does accept.
 */
export class UnsupportedFeatureError extends SandboxAgentError {
  override name = "UnsupportedFeatureError";
  readonly feature: string;
  /** The accepted values (mode ids, option ids, option values, categories), when the refusal is about a value. */
  readonly validValues: readonly string[] | undefined;

  constructor(feature: string, detail: string, validValues?: readonly string[]) {
    super(`${feature} is not supported here: ${detail}`);
    this.feature = feature;
    this.validValues = validValues;
  }
}
