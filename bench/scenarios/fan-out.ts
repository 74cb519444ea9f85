// Scenario 6: fan-out. The scenario-1 stream consumed by 1 and by 100 independent consumers: for ours
// 100 subscribers on `envelopes$`; upstream has one handler per kind, so there the handler loops over
// 100 callbacks, and raw loops in its parser callback. Reported as CPU per envelope, and the cost of
// 100 relative to 1.
import type { Contender } from "../contenders/index.js";
import { consume, type ConsumeResult } from "./inbound-cost.js";
import type { SyntheticBody } from "../support/synthetic.js";

export const FAN_OUT = 100;

export interface FanOutResult {
  single: ConsumeResult;
  fanned: ConsumeResult;
}

export async function fanOut(contender: Contender, body: SyntheticBody): Promise<FanOutResult> {
  const single = await consume(contender, body, 1);
  const fanned = await consume(contender, body, FAN_OUT);
  return { single, fanned };
}
