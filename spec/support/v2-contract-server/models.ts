/** Per-agent model catalogs (§3 last bullet, §4.1 list_models). */
import type { AgentId } from "./agents.js";
import { asObject, firstString, isObject, stringField, type JsonObject } from "./json.js";

export interface ModelEntry {
  modelId: string;
  name: string | null;
  description: string | null;
  defaultVariant: string | null;
  variants: unknown[];
}

interface Catalog {
  models: ModelEntry[];
  currentModelId: string | null;
}

const entry = (modelId: string, name: string | null = null): ModelEntry => ({
  modelId,
  name,
  description: null,
  defaultVariant: null,
  variants: [],
});

/** §4.1 built-in fallbacks. Only the mock's display name is given by the contract; the others stay null. */
const FALLBACK: Record<AgentId, ModelEntry[]> = {
  claude: ["default", "sonnet", "opus", "haiku"].map((id) => entry(id)),
  amp: [entry("amp-default")],
  mock: [entry("mock", "Mock")],
  codex: [],
  opencode: [],
};

function fromAcpModel(value: unknown): ModelEntry | undefined {
  const modelId = stringField(value, "modelId");
  if (modelId === undefined) return undefined;
  const variants = asObject(value)?.variants;
  return {
    modelId,
    name: stringField(value, "name") ?? null,
    description: stringField(value, "description") ?? null,
    defaultVariant: stringField(value, "defaultVariant") ?? null,
    variants: Array.isArray(variants) ? variants : [],
  };
}

/** §4.1: `model/list` pages carry `data[]` with `model|id`, `displayName|name` and `isDefault`. */
export function parseModelListPage(result: unknown): { models: ModelEntry[]; defaultId?: string } {
  const data = asObject(result)?.data;
  const models: ModelEntry[] = [];
  let defaultId: string | undefined;
  for (const item of Array.isArray(data) ? data : []) {
    const id = firstString(item, "model", "id");
    if (id === undefined) continue;
    models.push(entry(id, firstString(item, "displayName", "name") ?? null));
    if (asObject(item)?.isDefault === true) defaultId = id;
  }
  return defaultId === undefined ? { models } : { models, defaultId };
}

export class ModelCatalogs {
  private readonly cached = new Map<AgentId, Catalog>();

  /** §3: catalogs found in any forwarded response; when no current id is given the first counts as current. */
  observeResponse(agent: AgentId, result: unknown): void {
    const nested = asObject(asObject(result)?.models);
    const list = nested?.availableModels ?? asObject(result)?.availableModels;
    if (!Array.isArray(list)) return;
    const models = list.filter(isObject).map(fromAcpModel).filter((model): model is ModelEntry => model !== undefined);
    // [inferred] An empty list is not cached, so the §4.1 fallback stays reachable.
    if (models.length === 0) return;
    const current = stringField(nested, "currentModelId") ?? stringField(result, "currentModelId");
    this.cached.set(agent, { models, currentModelId: current ?? models[0]?.modelId ?? null });
  }

  /** §4.1: the refreshed catalog is sorted by id. [inferred] An empty refresh is treated like a failed one. */
  storeRefresh(agent: AgentId, models: ModelEntry[], defaultId: string | undefined): void {
    if (models.length === 0) return;
    const sorted = [...models].sort((a, b) => (a.modelId < b.modelId ? -1 : a.modelId > b.modelId ? 1 : 0));
    this.cached.set(agent, { models: sorted, currentModelId: defaultId ?? sorted[0]?.modelId ?? null });
  }

  /** §5: session/set_model moves the per-agent current model (set_metadata does not). */
  setCurrent(agent: AgentId, modelId: string): void {
    const catalog = this.catalog(agent);
    this.cached.set(agent, { models: catalog.models, currentModelId: modelId });
  }

  /** The cached catalog, else the built-in fallback whose first entry counts as current. */
  catalog(agent: AgentId): Catalog {
    const cached = this.cached.get(agent);
    if (cached) return cached;
    const models = FALLBACK[agent];
    return { models, currentModelId: models[0]?.modelId ?? null };
  }
}

export function listModelsResult(catalog: Catalog, sessionModelHint: string | undefined): JsonObject {
  return {
    availableModels: catalog.models.map((model) => ({ ...model })),
    currentModelId: sessionModelHint ?? catalog.currentModelId,
  };
}
