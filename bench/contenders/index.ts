import type { Contender, ContenderName } from "./contender.js";
import { ours } from "./ours.js";
import { raw } from "./raw.js";
import { upstream } from "./upstream.js";

export * from "./contender.js";

export const contenders: Record<ContenderName, Contender> = { ours, upstream, raw };
